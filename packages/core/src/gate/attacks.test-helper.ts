import type { LedgerStore, Proposal } from '../ledger/types.ts';

// Shared by the attacks-*.test.ts files.

export const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
export const tokenParts = (t: string) => t.split('.') as [string, string, string];

/** `inner` with some methods replaced; the rest delegate to it (bound, so private fields work). */
export function withOverrides<T extends object>(inner: T, overrides: Partial<T>): T {
  return new Proxy(inner, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof T];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** A ledger whose reads an attacker has tampered with (row edited in the store). */
export function tamperedLedger(inner: LedgerStore, edit: (p: Proposal) => Proposal): LedgerStore {
  return withOverrides(inner, {
    getProposal: async (proposalId: string) => {
      const p = await inner.getProposal(proposalId);
      return p && edit(p);
    },
    getProposalWithRequest: async (proposalId: string) => {
      const found = await inner.getProposalWithRequest(proposalId);
      return found && { ...found, proposal: edit(found.proposal) };
    },
    getRequestWithProposal: async (requestId: string) => {
      const found = await inner.getRequestWithProposal(requestId);
      return found && { ...found, proposal: edit(found.proposal) };
    },
    findProposalByCall: async (runId: string, callId: string) => {
      const p = await inner.findProposalByCall(runId, callId);
      return p && edit(p);
    },
  });
}
