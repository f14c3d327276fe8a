import type { Proposal } from '../ledger/types.ts';
import type { ExpectedCall } from '../token/format.ts';

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
