import { expectedCallOf } from '@countersign/core/gate';
import { effectiveStatus, type LedgerStore } from '@countersign/core/ledger';
import { type ApprovalClaims, type ExpectedCall, type Keyring, verifyApprovalToken } from '@countersign/core/token';

/** How a token was checked: against the ledger's call, or only against its own claims. */
export type TokenCheck =
  | { checked: 'ledger'; ok: true; proposalId: string; requestId: string; message: string }
  | { checked: 'ledger'; ok: false; reason: string; message: string }
  | { checked: 'claims'; ok: true; message: string }
  | { checked: 'claims'; ok: false; reason: string; message: string };

/**
 * What the gate would say about this token for the call it names, short of consuming
 * it: the call is looked up by the token's run and call ids, the token verified
 * against the LEDGER's record, then the approval's state checked. Reason codes are
 * the gate's own `not_approved` reasons.
 */
export async function checkTokenAgainstLedger(
  token: string,
  claims: ApprovalClaims,
  ledger: LedgerStore,
  keyring: Keyring,
  now: number,
): Promise<TokenCheck> {
  const fail = (reason: string, message: string): TokenCheck => ({ checked: 'ledger', ok: false, reason, message });
  const proposal = await ledger.findProposalByCall(claims.run, claims.call);
  if (proposal === undefined) return fail('unknown_call', `no call ${claims.call} was recorded in run ${claims.run}`);
  const verified = verifyApprovalToken(token, expectedCallOf(proposal), { keyring, now });
  if (!verified.ok) return fail(verified.reason, verified.message);
  const request = await ledger.findApprovalRequestByProposal(proposal.proposalId);
  if (request === undefined || request.requestId !== claims.req || request.tokenId !== claims.jti) {
    return fail('token_mismatch', "the token is not the one issued for this call's approval request");
  }
  const status = effectiveStatus(request, now);
  switch (status) {
    case 'approved':
      return {
        checked: 'ledger',
        ok: true,
        proposalId: proposal.proposalId,
        requestId: request.requestId,
        message: 'valid for the recorded call, and not used yet: dispatch would run it once',
      };
    case 'consumed':
      return fail('already_consumed', 'the approval was already used');
    case 'revoked':
      return fail('approval_revoked', 'the approval was revoked');
    case 'expired':
      return fail('expired', 'the approval has expired');
    case 'denied':
      return fail('approval_denied', 'the request was denied');
    case 'edited':
      return fail('approval_edited', 'an approver replaced the call with an edited one');
    case 'pending':
      return fail('approval_pending', 'the request is still pending');
  }
}

/** Without a store: the signature and times, checked against the token's own claims. */
export function checkTokenAgainstClaims(token: string, claims: ApprovalClaims, keyring: Keyring, now: number): TokenCheck {
  const selfExpected: ExpectedCall = {
    runId: claims.run,
    sessionId: claims.sid,
    callId: claims.call,
    toolName: claims.tool,
    definitionDigest: claims.def ?? undefined,
    argsDigest: claims.args,
    principal: claims.sub,
  };
  const verified = verifyApprovalToken(token, selfExpected, { keyring, now });
  if (!verified.ok) return { checked: 'claims', ok: false, reason: verified.reason, message: verified.message };
  return {
    checked: 'claims',
    ok: true,
    message: 'signature valid and not expired; NOT checked against a recorded call (pass --db or --database-url for that)',
  };
}
