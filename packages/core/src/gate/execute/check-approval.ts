import { effectiveStatus } from '../../ledger/effective-status.ts';
import type { ApprovalRequest, ApprovalStatus, ConsumeFailure, Proposal } from '../../ledger/types.ts';
import { decodeApprovalToken } from '../../token/decode.ts';
import { verifyApprovalToken } from '../../token/verify.ts';
import { verifyAsMinted } from '../../token/verify-minted.ts';
import { mintedPayloadOf } from '../../token/mint.ts';
import type { GateDeps } from '../config.ts';
import type { ExpectedCall } from '../../token/format.ts';
import type { NotApprovedReason } from '../common/outcomes.ts';
import type { AuthorizeOutcome } from '../common/port.ts';
import { type Rejection, reject } from '../common/reject.ts';
import { tokenInputOf } from '../common/token-input.ts';

/** Reason for an authorization without a token, by the state of the call's approval request. */
const NO_TOKEN_REASON: Record<Exclude<ApprovalStatus, 'denied'> | 'none', NotApprovedReason> = {
  pending: 'approval_pending', // answered with approval_required; here for completeness
  none: 'missing',
  approved: 'missing',
  expired: 'expired',
  revoked: 'approval_revoked',
  consumed: 'already_consumed',
  // Approve-with-edits replaced the call: nothing of the original runs (the edited
  // call is another proposal, with its own request and token).
  edited: 'approval_edited',
};

export type ApprovalCheck =
  | { status: 'ok'; approval: { requestId: string; tokenId: string }; request: ApprovalRequest }
  | { status: 'stop'; outcome: Exclude<AuthorizeOutcome, { status: 'authorized' }> };

/**
 * Verifies the token presented for a call that needs approval, against the LEDGER's
 * call (invariant 3) and the call's own approval request (`request`, read with the call
 * by getProposalWithRequest). Consuming it is the caller's next, atomic step. A token
 * that verifies is answered in the same turn (no promise: this is on every approved
 * dispatch); a refusal is audited first, so it comes as a promise.
 */
export function checkApproval(
  deps: GateDeps,
  proposal: Proposal,
  request: ApprovalRequest | undefined,
  token: string | undefined,
  now: number,
): ApprovalCheck | Promise<ApprovalCheck> {
  if (token === undefined || token === '') return refuseWithoutToken(deps, proposal, request, now);
  // The proposal is itself the expected call (same field names), read from the ledger.
  // The token this server mints for the ledger's row is recognised by comparing it with
  // that token, parsing nothing (verifyAsMinted); any other token is verified the usual way.
  const input = request === undefined ? undefined : tokenInputOf(proposal, request);
  const options = { keyring: deps.keyring, now, clockToleranceSeconds: deps.clockToleranceSeconds };
  const verified =
    (input === undefined ? undefined : verifyAsMinted(token, input, options)) ??
    verifyApprovalToken(token, proposal satisfies ExpectedCall, options, input === undefined ? undefined : mintedPayloadOf(input));
  if (!verified.ok) {
    const decoded = decodeApprovalToken(token);
    const tokenId = decoded.ok ? decoded.token.claims.jti : undefined;
    return stop(reject(deps, proposal, { status: 'not_approved', reason: verified.reason }, verified.message, undefined, undefined, tokenId));
  }
  if (request === undefined || request.requestId !== verified.claims.req) {
    return stop(reject(deps, proposal, { status: 'not_approved', reason: 'token_mismatch' }, "token does not belong to this call's approval request"));
  }
  return { status: 'ok', approval: { requestId: request.requestId, tokenId: verified.claims.jti }, request };
}

async function stop(outcome: Promise<Exclude<AuthorizeOutcome, { status: 'authorized' }>>): Promise<ApprovalCheck> {
  return { status: 'stop', outcome: await outcome };
}

/** No evidence: say where the request stands, so a waiting agent knows whether to keep waiting. */
async function refuseWithoutToken(deps: GateDeps, proposal: Proposal, request: ApprovalRequest | undefined, now: number): Promise<ApprovalCheck> {
  const status = request === undefined ? 'none' : effectiveStatus(request, now);
  if (status === 'pending' && request !== undefined) {
    return { status: 'stop', outcome: { status: 'approval_required', proposalId: proposal.proposalId, requestId: request.requestId, expiresAt: request.expiresAt } };
  }
  const rejection: Rejection =
    status === 'denied'
      ? { status: 'denied', reason: 'approval_denied' }
      : { status: 'not_approved', reason: NO_TOKEN_REASON[status] };
  return { status: 'stop', outcome: await reject(deps, proposal, rejection, noTokenMessage(status, request)) };
}

function noTokenMessage(status: ApprovalStatus | 'none', request: ApprovalRequest | undefined): string {
  const editedTo = status === 'edited' ? request?.decisions.find((d) => d.editedProposalId !== undefined)?.editedProposalId : undefined;
  if (editedTo !== undefined) return `an approver replaced this call with an edited one: run proposal ${editedTo} instead`;
  return `this tool needs an approval token (request ${status})`;
}

export function consumeReason(reason: ConsumeFailure): NotApprovedReason {
  switch (reason) {
    case 'already_consumed':
      return 'already_consumed';
    case 'expired':
      return 'expired';
    case 'revoked':
      return 'approval_revoked';
    case 'not_approved':
      return 'approval_pending';
    case 'not_found':
    case 'token_mismatch':
      return 'token_mismatch';
  }
}
