import type { ApprovalRequest } from '../../ledger/types.ts';
import type { MintInput } from '../../token/mint.ts';
import type { ClaimedCall } from '../../ledger/expected-call.ts';

/**
 * What the token for an approved request binds, read from the ledger's records: the call,
 * the approvers in decision order, the request, its approval and expiry times (seconds)
 * and its token id. Undefined while the request has no token. The one derivation both
 * issue-token (to mint) and check-approval (to recognise a minted token) use.
 */
export function tokenInputOf(proposal: ClaimedCall, request: ApprovalRequest): MintInput | undefined {
  if (request.tokenId === undefined || request.approvedAt === undefined) return undefined;
  // A loop rather than filter + map: this runs on every approved dispatch.
  const apr: string[] = [];
  for (const d of request.decisions) if (d.decision === 'approve') apr.push(d.approver);
  // callClaimsOf's members written out (same order): no intermediate object to spread.
  return {
    run: proposal.runId,
    sid: proposal.sessionId,
    call: proposal.callId,
    tool: proposal.toolName,
    def: proposal.definitionDigest ?? null,
    args: proposal.argsDigest,
    sub: proposal.principal,
    apr,
    req: request.requestId,
    iat: Math.floor(request.approvedAt / 1000),
    exp: Math.floor(request.expiresAt / 1000),
    jti: request.tokenId,
  };
}
