import type { ProposeOutcome } from '@countersign/core/gate';

/**
 * Names and plain-JSON shapes shared by workflow code and activities. Type-only imports
 * from core: this file is bundled into the workflow sandbox and must pull in no module.
 */

/** The activity that records the model's tool calls (registered by `createCountersignActivities`). */
export const PROPOSE_ACTIVITY = 'countersign.propose';
/** The signal the notifier sends to workflow id = run id when a request is decided. */
export const DECISION_SIGNAL = 'countersign.decision';

/** What the workflow asks to propose; the run id is NOT here: the activity takes it from Temporal (workflow id). */
export interface ProposeInput {
  sessionId: string;
  principal: string;
  responseRef?: string | undefined;
  toolCalls: ReadonlyArray<{ id: string; name: string; arguments: unknown }>;
}

export type { ProposeOutcome };

/**
 * The decision signal. A wake-up, not evidence: the tool activity reads the decision
 * (and the token) from Countersign by `requestId`, so a forged or replayed signal can
 * end the wait early but never make a call run.
 */
export interface DecisionSignal {
  requestId: string;
  decision: 'approve' | 'deny' | 'revoked' | 'edited';
}

/**
 * The single argument a guarded tool activity is scheduled with. It names the call
 * (proposal, approval request); the arguments are only a cross-check: the tool runs with
 * the ledger's arguments from the grant.
 */
export interface ToolEnvelope {
  /** The call (proposal, approval request) and what authorize cross-checks besides run, tool and arguments: the model's call id, session and principal. */
  countersign: { v: 1; proposalId: string; requestId?: string | undefined; callId: string; sessionId: string; principal: string };
  arguments: unknown;
}

export function isToolEnvelope(value: unknown): value is ToolEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const ref = (value as { countersign?: unknown }).countersign;
  if (typeof ref !== 'object' || ref === null) return false;
  const { v, proposalId, requestId, callId, sessionId, principal } = ref as Record<string, unknown>;
  const named = typeof callId === 'string' && typeof sessionId === 'string' && typeof principal === 'string';
  return v === 1 && typeof proposalId === 'string' && (requestId === undefined || typeof requestId === 'string') && named;
}

/** How a guarded call ended, as the workflow sees it. */
export type GuardedCallResult<R = unknown> =
  | { status: 'executed'; proposalId: string; result: R }
  | { status: 'denied'; reason: string; message: string; proposalId?: string | undefined }
  | { status: 'rejected'; reason: string; message: string }
  | { status: 'expired'; proposalId: string; requestId: string; expiresAt: number }
  | { status: 'refused'; proposalId: string; failureType: string; message: string };

/**
 * ApplicationFailure types the tool interceptor throws. All are non-retryable (a retry could
 * never pass) except `storeUnavailable`: nothing was spent, so Temporal's retry may succeed.
 */
export const FAILURE_TYPES = {
  noGrant: 'CountersignNoGrant',
  notApproved: 'CountersignNotApproved',
  denied: 'CountersignDenied',
  approvalRequired: 'CountersignApprovalRequired',
  /** The grant was already spent: a replayed attempt. Details carry the call status ("ran, result unknown" when `dispatched`). */
  alreadyConsumed: 'CountersignAlreadyConsumed',
  /**
   * Authorize answered `outcome_unknown` and the call no longer reads `proposed`: the approval
   * may be spent and the call may have run. Never retried, never an ordinary refusal; details
   * carry core's `UnknownOutcome` (with the call's state) for an operator to check.
   */
  outcomeUnknown: 'CountersignOutcomeUnknown',
  toolFailed: 'CountersignToolFailed',
  storeUnavailable: 'CountersignStoreUnavailable',
} as const;
