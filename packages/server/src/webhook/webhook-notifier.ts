import { type DisplayFinding, inspectForDisplay } from '@countersign/core/display';
import type { DeliveredEvent } from '@countersign/core/events';
import type { Gate } from '@countersign/core/gate';
import { approvalCount } from '../views/request-views.ts';
import type { WebhookSender } from './webhook-sender.ts';

/** What a webhook delivery is about. */
export type WebhookEventType = 'request.created' | 'request.decided';

/** What receivers get. No arguments: only their digest (the body leaves the trust boundary). */
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
    decisions: Array<{ approver: string; decision: 'approve' | 'deny'; at: number }>;
    /** Link to the approval page, when the server knows its public origin. */
    url: string | null;
  };
  /**
   * For receivers that show the call to people (chat, e-mail): what in the fields above
   * does not read as what it is (pointers into `request`), and whether the arguments,
   * which the payload leaves out, have such findings too (see the approval page).
   */
  display: { findings: DisplayFinding[]; truncated: boolean; argumentsFlagged: boolean };
}

/**
 * The webhook event for a gate event, if it has one: a request opened, or decided
 * (approve-with-edits decides the original). Events from other replicas are theirs to
 * deliver, so each change is sent once, by the replica where it happened.
 */
function webhookEventOf(event: DeliveredEvent): { type: WebhookEventType; requestId: string } | undefined {
  if (event.remote === true) return undefined;
  switch (event.type) {
    case 'approval_requested':
      return { type: 'request.created', requestId: event.requestId };
    case 'decided':
    case 'edited':
      return { type: 'request.decided', requestId: event.requestId };
    default:
      return undefined;
  }
}

/**
 * Turns the gate's request events into signed webhook deliveries, whoever caused
 * them (HTTP routes or code calling the gate directly).
 */
export function notifyByWebhook(gate: Gate, sender: WebhookSender, publicOrigin: string | undefined): { stop(): void; settled(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  const unsubscribe = gate.events.subscribe((delivered) => {
    const event = webhookEventOf(delivered);
    if (event === undefined) return;
    const job = payloadFor(gate, event, publicOrigin)
      .then((payload) => {
        if (payload !== undefined) sender.send(payload.id, payload);
      })
      .catch(() => {
        // The store could not be read; the event is lost for the webhook, never for the request.
      })
      .finally(() => pending.delete(job));
    pending.add(job);
  });
  return {
    stop: unsubscribe,
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

async function payloadFor(gate: Gate, event: { type: WebhookEventType; requestId: string }, publicOrigin: string | undefined): Promise<WebhookPayload | undefined> {
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
    decisions: request.decisions.map((d) => ({ approver: d.approver })),
  };
  const { findings, truncated } = inspectForDisplay(fields);
  // Only whether the arguments are flagged: their pointers would name keys the payload withholds.
  const argumentsFlagged = inspectForDisplay(JSON.parse(proposal.canonicalArgs)).findings.length > 0;
  const id = event.type === 'request.created' ? `${event.type}:${request.requestId}` : `${event.type}:${request.requestId}:${request.decisions.length}`;
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
      approvals: approvalCount(request),
      requiredApprovals: request.requiredApprovals,
      decisions: request.decisions.map((d) => ({ approver: d.approver, decision: d.decision, at: d.at })),
      url: publicOrigin === undefined ? null : `${publicOrigin}/requests/${encodeURIComponent(request.requestId)}`,
    },
    display: { findings, truncated, argumentsFlagged },
  };
}
