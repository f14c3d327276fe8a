import type { Proposal } from './types.ts';
import type { CallClaims, ExpectedCall } from '../token/format.ts';

/** What a token must bind, read from the ledger's record of the call (never from the token). */
export function expectedCallOf(proposal: Proposal): ExpectedCall {
  return {
    runId: proposal.runId,
    sessionId: proposal.sessionId,
    callId: proposal.callId,
    toolName: proposal.toolName,
    definitionDigest: proposal.definitionDigest,
    argsDigest: proposal.argsDigest,
    principal: proposal.principal,
  };
}

/** The fields of a recorded call that its claims bind. */
export type ClaimedCall = Pick<Proposal, 'runId' | 'sessionId' | 'callId' | 'toolName' | 'definitionDigest' | 'argsDigest' | 'principal'>;

/** The claims every signed object about a call carries (tokens, decision records, passkey challenges), from the ledger's record. */
export function callClaimsOf(proposal: ClaimedCall): CallClaims {
  return {
    run: proposal.runId,
    sid: proposal.sessionId,
    call: proposal.callId,
    tool: proposal.toolName,
    def: proposal.definitionDigest ?? null,
    args: proposal.argsDigest,
    sub: proposal.principal,
  };
}
