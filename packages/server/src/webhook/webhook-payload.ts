import { type DisplayFinding, displayText, inspectForDisplay } from '@countersign/core/display';
import type { Gate } from '@countersign/core/gate';
import { approvalCount } from '../views/request-views.ts';

/** What a webhook delivery is about. */
export type WebhookEventType = 'request.created' | 'request.decided' | 'request.executed' | 'request.completed' | 'request.expired';

/** What receivers get. No raw arguments: their digest, and a display-safe summary only where the webhook opted in. */
export interface WebhookPayload {
  /** Stable per event, so receivers can drop duplicates of a retried delivery. */
  id: string;
  type: WebhookEventType;
  request: {
    requestId: string;
    status: string;
    toolName: string;
    principal: string;
    argsDigest: string;
    definitionDigest: string | null;
    runId: string;
    sessionId: string;
    callId: string;
    createdAt: number;
    expiresAt: number;
    approvals: number;
    requiredApprovals: number;
    /** The policy rule that asked for approval, when one did. */
    ruleId?: string | undefined;
    decisions: Array<{ approver: string; decision: 'approve' | 'deny'; at: number; reason?: string }>;
    /** Link to the approval page: the public origin, or the listen address when none is set. */
    url: string | null;
  };
  /**
   * One line for people (chat, e-mail): tool, principal, approvals, and for a decision
   * its approver, decision and reason; every part display-safe (invisible and
   * bidirectional characters escaped, truncated). `arguments`: only with the webhook's
   * `argumentSummary` on: top-level fields as `key: value`, values truncated.
   */
  summary: { text: string; arguments?: string | undefined };
  /** `request.completed`: how the call ended. */
  outcome?: { status: 'succeeded' | 'failed' } | undefined;
  /**
   * For receivers that show the call to people: what in the fields above does not read
   * as what it is (pointers into `request`), and whether the arguments have such findings.
   */
  display: { findings: DisplayFinding[]; truncated: boolean; argumentsFlagged: boolean };
}

export interface PayloadOptions {
  /** Origin for the approval page link; undefined when not known. */
  origin: string | undefined;
  argumentSummary: boolean;
}

const MAX_VALUE = 40;
const MAX_FIELDS = 6;

/** The payload for one event about `requestId`, read from the store now; undefined for an unknown request. */
export async function buildPayload(
  gate: Gate,
  event: { type: WebhookEventType; requestId: string; outcome?: 'succeeded' | 'failed' | undefined },
  options: PayloadOptions,
): Promise<WebhookPayload | undefined> {
  const found = await gate.approvals.view(event.requestId);
  if (!found.ok) return undefined;
  const view = found.view;
  const { request, proposal } = view;
  const fields = {
    toolName: proposal.toolName,
    principal: proposal.principal,
    runId: proposal.runId,
    sessionId: proposal.sessionId,
    callId: proposal.callId,
    decisions: request.decisions.map((d) => ({ approver: d.approver, ...(d.reason === undefined ? {} : { reason: d.reason }) })),
  };
  const { findings, truncated } = inspectForDisplay(fields);
  const args: unknown = JSON.parse(proposal.canonicalArgs);
  // Only whether the arguments are flagged: their pointers would name keys the payload may withhold.
  const argumentsFlagged = inspectForDisplay(args).findings.length > 0;
  const approvals = approvalCount(request);
  const last = request.decisions.at(-1);
  const id =
    event.type === 'request.decided' ? `${event.type}:${request.requestId}:${request.decisions.length}` : `${event.type}:${request.requestId}`;
  const text = [
    `${safe(proposal.toolName)} for ${safe(proposal.principal)}: ${describeEvent(event.type, view.status, event.outcome)}`,
    `${approvals} of ${request.requiredApprovals} approval${request.requiredApprovals === 1 ? '' : 's'}`,
    ...(event.type === 'request.decided' && last !== undefined
      ? [`${last.decision === 'approve' ? 'approved' : 'denied'} by ${safe(last.approver)}${last.reason === undefined ? '' : ` (reason: ${safe(last.reason, 200)})`}`]
      : []),
  ].join('; ');
  return {
    id,
    type: event.type,
    request: {
      requestId: request.requestId,
      status: view.status,
      toolName: proposal.toolName,
      principal: proposal.principal,
      argsDigest: proposal.argsDigest,
      definitionDigest: proposal.definitionDigest ?? null,
      runId: proposal.runId,
      sessionId: proposal.sessionId,
      callId: proposal.callId,
      createdAt: request.createdAt,
      expiresAt: request.expiresAt,
      approvals,
      requiredApprovals: request.requiredApprovals,
      ...(request.ruleId === undefined ? {} : { ruleId: safe(request.ruleId) }),
      decisions: request.decisions.map((d) => ({ approver: d.approver, decision: d.decision, at: d.at, ...(d.reason === undefined ? {} : { reason: d.reason }) })),
      url: options.origin === undefined ? null : `${options.origin}/requests/${encodeURIComponent(request.requestId)}`,
    },
    summary: { text, ...(options.argumentSummary ? { arguments: summarizeArguments(args) } : {}) },
    ...(event.outcome === undefined ? {} : { outcome: { status: event.outcome } }),
    display: { findings, truncated, argumentsFlagged },
  };
}

function describeEvent(type: WebhookEventType, status: string, outcome: string | undefined): string {
  switch (type) {
    case 'request.created':
      return 'approval requested';
    case 'request.decided':
      return `now ${status}`;
    case 'request.executed':
      return 'approval used, the call runs now';
    case 'request.completed':
      return `the call ${outcome ?? 'completed'}`;
    case 'request.expired':
      return 'expired undecided, nothing ran';
  }
}

/** Top-level fields as `key: value`, each value display-safe and truncated; nested values shown as {…} / […]. */
export function summarizeArguments(args: unknown): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return safe(JSON.stringify(args));
  const entries = Object.entries(args);
  const shown = entries.slice(0, MAX_FIELDS).map(([key, value]) => {
    const text = typeof value === 'object' && value !== null ? (Array.isArray(value) ? '[…]' : '{…}') : JSON.stringify(value);
    return `${safe(key, MAX_VALUE)}: ${safe(text)}`;
  });
  return [...shown, ...(entries.length > MAX_FIELDS ? [`… ${entries.length - MAX_FIELDS} more`] : [])].join(', ');
}

/** Display-safe (core/display escapes invisible, bidi and control characters) and at most `max` characters. */
function safe(value: string, max = MAX_VALUE): string {
  const shown = displayText(value);
  return shown.length > max ? `${shown.slice(0, max - 1)}…` : shown;
}
