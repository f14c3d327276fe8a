import type { ProposalInput } from './types.ts';

/** Whether two records describe the same model call (used to make re-recording idempotent). */
export function sameCall(a: ProposalInput, b: ProposalInput): boolean {
  return (
    a.runId === b.runId &&
    a.agent === b.agent &&
    a.sessionId === b.sessionId &&
    a.principal === b.principal &&
    a.callId === b.callId &&
    a.toolName === b.toolName &&
    a.argsDigest === b.argsDigest &&
    a.canonicalArgs === b.canonicalArgs &&
    (a.definitionDigest ?? null) === (b.definitionDigest ?? null)
  );
}
