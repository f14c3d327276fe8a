import type { ApprovalRequest, Proposal } from '../../ledger/types.ts';
import type { Grant } from './grant.ts';

/**
 * The grant for a dispatched call, built only from the ledger: the proposal and, when
 * the call consumed one, its approval request. `authorize` hands this out and
 * `complete` rebuilds it to check what the runtime brings back.
 */
export function grantOf(proposal: Proposal, request: ApprovalRequest | undefined): Grant {
  // A request counts only if this call consumed it: policy may have turned an
  // `approve` into `allow` after the request was opened, and then it was never used.
  return grantFrom(proposal, request !== undefined && request.status === 'consumed' ? request : undefined);
}

/**
 * `grantOf` with the consumed request named by the caller: `authorize`, which has just
 * consumed `used` in this call (read before the consume, so its status still reads
 * `approved`; its id, token id and decisions are what the consume left).
 */
export function grantFrom(proposal: Proposal, used: ApprovalRequest | undefined): Grant {
  // Built by assignment (this runs on every dispatch); absent fields stay absent, not undefined.
  const grant: Grant = {
    v: 1,
    proposalId: proposal.proposalId,
    runId: proposal.runId,
    sessionId: proposal.sessionId,
    principal: proposal.principal,
    agent: proposal.agent,
    callId: proposal.callId,
    toolName: proposal.toolName,
    canonicalArgs: proposal.canonicalArgs,
    argsDigest: proposal.argsDigest,
    authorizedAt: proposal.dispatchedAt ?? 0,
  };
  if (proposal.definitionDigest !== undefined) grant.definitionDigest = proposal.definitionDigest;
  if (used !== undefined) {
    grant.requestId = used.requestId;
    grant.tokenId = used.tokenId;
    const approvers: string[] = [];
    for (const d of used.decisions) if (d.decision === 'approve') approvers.push(d.approver);
    grant.approvers = approvers;
  }
  return grant;
}

const GRANT_FIELDS = [
  'v',
  'proposalId',
  'runId',
  'sessionId',
  'principal',
  'agent',
  'callId',
  'toolName',
  'definitionDigest',
  'canonicalArgs',
  'argsDigest',
  'requestId',
  'tokenId',
  'approvers',
  'authorizedAt',
] as const satisfies readonly (keyof Grant)[];

/** The first field in which `given` (untrusted, from the runtime) differs from the ledger's grant. */
export function grantMismatch(given: Record<string, unknown>, expected: Grant): string | undefined {
  for (const field of GRANT_FIELDS) if (!sameValue(given[field], expected[field])) return field;
  return undefined;
}

/**
 * A grant field's value is the expected one: strings and numbers by `===` (an absent field
 * equals an undefined one), the approvers list element by element. Exact, no conversion:
 * a String object, a value with `toJSON` or a number for a string is a mismatch.
 */
function sameValue(given: unknown, expected: unknown): boolean {
  if (given === expected) return true;
  return Array.isArray(expected) && Array.isArray(given) && sameList(given, expected);
}

function sameList(given: unknown[], expected: readonly unknown[]): boolean {
  if (given.length !== expected.length) return false;
  for (let i = 0; i < expected.length; i++) if (given[i] !== expected[i]) return false;
  return true;
}
