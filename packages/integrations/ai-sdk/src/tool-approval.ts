import { type SdkToolCall, verdictFor } from './call-verdict.ts';
import type { CountersignGuard } from './guard.ts';
import { formatRefusal } from './refusal.ts';

/** The approval statuses `toolApproval` answers with (a subset of the SDK's `ToolApprovalStatus`). */
export type CountersignApprovalStatus =
  | { type: 'not-applicable' }
  | { type: 'user-approval'; reason: string }
  | { type: 'denied'; reason: string };

/** The `reason` of the SDK's approval request: carries the Countersign request id the approver decides. */
export function approvalRequestReason(requestId: string): string {
  return `countersign:approval_required:${requestId}`;
}

/** The Countersign request id in an SDK approval request's `reason`, or undefined. */
export function requestIdOfApproval(reason: unknown): string | undefined {
  if (typeof reason !== 'string') return undefined;
  const match = /^countersign:approval_required:(\S+)$/.exec(reason);
  return match?.[1];
}

/**
 * The v7 `toolApproval` function, backed by Countersign policy: allowed → runs (through
 * the guarded `execute`); approval required → the SDK's approval request, its `reason`
 * carrying the Countersign request id; denied, rejected, or anything not proposed from a
 * model response → `denied` with a typed reason (`countersign:<status>:<reason>: ...`).
 *
 * The SDK calls it again for approvals a client sends back: the client's `approved: true`
 * counts for nothing there, only the ledger's state of that exact call does.
 */
export function countersignToolApproval(guard: CountersignGuard) {
  return async ({ toolCall }: { toolCall: SdkToolCall }): Promise<CountersignApprovalStatus> => {
    const verdict = await verdictFor(guard, toolCall);
    if (verdict.kind === 'run') return { type: 'not-applicable' };
    if (verdict.kind === 'ask') return { type: 'user-approval', reason: approvalRequestReason(verdict.requestId) };
    return { type: 'denied', reason: formatRefusal(verdict.denial) };
  };
}
