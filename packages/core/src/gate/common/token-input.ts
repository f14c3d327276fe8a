import type { ApprovalRequest } from '../../ledger/types.ts';
import type { MintInput } from '../../token/mint.ts';
import { type ClaimedCall, callClaimsOf } from '../../ledger/expected-call.ts';

/**
 * What the token for an approved request binds, read from the ledger's records: the call,
 * the approvers in decision order, the request, its approval and expiry times (seconds)
 * and its token id. Undefined while the request has no token. The one derivation both
 * issue-token (to mint) and check-approval (to recognise a minted token) use.
 */
export function tokenInputOf(proposal: ClaimedCall, request: ApprovalRequest): MintInput | undefined {
  if (request.tokenId === undefined || request.approvedAt === undefined) return undefined;
  const apr = request.decisions.filter((d) => d.decision === 'approve').map((d) => d.approver);
  return {
    ...callClaimsOf(proposal),
    apr,
    req: request.requestId,
    iat: Math.floor(request.approvedAt / 1000),
    exp: Math.floor(request.expiresAt / 1000),
    jti: request.tokenId,
  };
}
