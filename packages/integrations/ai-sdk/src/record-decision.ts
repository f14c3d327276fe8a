import type { Approver, DecisionFailure } from '@countersign/core/gate';
import { type CallIndex, defaultCallIndex } from './call-index.ts';

export type Decision = 'approve' | 'deny';

export type RecordDecisionOutcome =
  | { ok: true; requestId: string }
  | { ok: false; reason: DecisionFailure | 'unknown_call' | 'no_approval_request' | 'unexpected_response'; message: string };

/**
 * Records one authenticated person's decision on one approval request, through the
 * approval service: the approver's identity comes from the app's authentication, and
 * the service checks eligibility, expiry and single decision, and audits it.
 */
export type DecisionRecorder = (requestId: string, decision: Decision, reason?: string) => Promise<RecordDecisionOutcome>;

/** The in-process approval service (`gate.approvals`), deciding as `approver`. */
export function gateDecisions(
  approvals: { decide(approver: Approver, input: { requestId: string; decision: Decision; reason?: string | undefined }): Promise<{ ok: true } | { ok: false; reason: DecisionFailure; message: string }> },
  approver: Approver,
): DecisionRecorder {
  return async (requestId, decision, reason) => {
    const decided = await approvals.decide(approver, { requestId, decision, reason });
    return decided.ok ? { ok: true, requestId } : { ok: false, reason: decided.reason, message: decided.message };
  };
}

export interface ServiceDecisionsOptions {
  /** The approval service, e.g. `http://127.0.0.1:8787`. */
  baseUrl: string;
  /**
   * How the service authenticates this person: their approver bearer token, or the
   * trusted-proxy identity headers (with the shared secret) of an app server that
   * authenticated them itself.
   */
  headers: Record<string, string>;
  fetch?: ((input: string, init: RequestInit) => Promise<Response>) | undefined;
}

/** The approval service over HTTP (`POST /api/v1/decisions`), deciding as whoever `headers` authenticate. */
export function serviceDecisions(options: ServiceDecisionsOptions): DecisionRecorder {
  const send = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  return async (requestId, decision, reason) => {
    const response = await send(new URL('/api/v1/decisions', options.baseUrl).toString(), {
      method: 'POST',
      headers: { ...options.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ requestId, decision, ...(reason === undefined ? {} : { reason }) }),
    });
    if (response.ok) return { ok: true, requestId };
    const body = (await response.json().catch(() => undefined)) as { error?: { code?: unknown; message?: unknown } } | undefined;
    const code = typeof body?.error?.code === 'string' ? body.error.code : `http_${response.status}`;
    const message = typeof body?.error?.message === 'string' ? body.error.message : `the approval service answered ${response.status}`;
    return { ok: false, reason: DECISION_FAILURES.has(code) ? (code as DecisionFailure) : 'unexpected_response', message: `${code}: ${message}` };
  };
}

const DECISION_FAILURES = new Set<string>([
  'not_found',
  'not_eligible',
  'expired',
  'already_decided',
  'duplicate_approver',
  'invalid_arguments',
  'invalid_decision',
  'edit_denied_by_policy',
  'store_unavailable',
]);

export interface RecordUserDecisionInput {
  /** The call index the guards write (the app server's own record of which request belongs to which call). Default: `defaultCallIndex()`. */
  index?: CallIndex | undefined;
  /** The run, from the app server's own state. */
  runId: string;
  /** The SDK tool call the user decided on. */
  toolCallId: string;
  decision: Decision;
  reason?: string | undefined;
  /** Records the decision as the authenticated user (`gateDecisions` or `serviceDecisions`). */
  recorder: DecisionRecorder;
}

/**
 * For chat UIs where the user approves their own call: the app's authenticated
 * approval endpoint calls this with the user's decision, and it is recorded in
 * Countersign as that user's decision on the ledger's request for that call (the
 * policy rule must let the principal approve: `approvers: { principalSelf: true }`).
 *
 * This is the only way a chat approval counts: the `approved: true` part a client
 * sends back in the history (`addToolApprovalResponse`) is not evidence, and the
 * integration ignores it when deciding what runs.
 */
export async function recordUserDecision(input: RecordUserDecisionInput): Promise<RecordDecisionOutcome> {
  const indexed = await (input.index ?? defaultCallIndex()).get(input.runId, input.toolCallId);
  if (indexed === undefined) return { ok: false, reason: 'unknown_call', message: `no call ${input.toolCallId} was proposed in run ${input.runId}` };
  if (indexed.requestId === undefined) {
    return { ok: false, reason: 'no_approval_request', message: `call ${input.toolCallId} needs no approval (policy allowed it)` };
  }
  return input.recorder(indexed.requestId, input.decision, input.reason);
}
