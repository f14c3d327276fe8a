import type { LedgerStore, Proposal } from '../../ledger/types.ts';

/**
 * `inner` as an attacker with write access to the database leaves it: every read of the
 * proposal `proposalId` returns `edit` of the stored row. Everything else is `inner`'s
 * (methods bound to it, so stores with private fields keep working).
 */
export function tamperedLedger(inner: LedgerStore, proposalId: string, edit: (row: Proposal) => Proposal): LedgerStore {
  const edited = (row: Proposal | undefined) => (row?.proposalId === proposalId ? edit(row) : row);
  const reads: Partial<LedgerStore> = {
    getProposal: async (id) => edited(await inner.getProposal(id)),
    getProposalWithRequest: async (id) => {
      const found = await inner.getProposalWithRequest(id);
      return found && { ...found, proposal: edited(found.proposal) as Proposal };
    },
    getRequestWithProposal: async (id) => {
      const found = await inner.getRequestWithProposal(id);
      return found && { ...found, proposal: edited(found.proposal) as Proposal };
    },
    findProposalByCall: async (runId, callId) => edited(await inner.findProposalByCall(runId, callId)),
  };
  return new Proxy(inner, {
    get(target, key) {
      if (Object.hasOwn(reads, key)) return reads[key as keyof LedgerStore];
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
