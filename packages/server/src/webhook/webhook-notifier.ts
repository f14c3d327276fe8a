import type { DeliveredEvent } from '@countersign/core/events';
import type { Gate } from '@countersign/core/gate';
import { slackMessage } from './slack-payload.ts';
import { buildPayload, type WebhookEventType } from './webhook-payload.ts';
import type { WebhookSender } from './webhook-sender.ts';

export type { WebhookEventType, WebhookPayload } from './webhook-payload.ts';

export interface NotifierOptions {
  /** Origin of the approval page links, read per event (the port may be known only after listening). */
  origin: () => string | undefined;
  /** `slack`: an incoming-webhook message (Block Kit) instead of Countersign's JSON. */
  format: 'countersign' | 'slack';
  /** Include a display-safe summary of the top-level arguments (off: the digest only). */
  argumentSummary: boolean;
  /** How often requests this replica opened are checked for expiry. Default 15000. */
  expiryCheckMs?: number | undefined;
}

type Job = { type: WebhookEventType; requestId: string; outcome?: 'succeeded' | 'failed' | undefined };

// Proposal → request of calls authorized here, to name the request when the call completes.
const MAX_REMEMBERED = 10_000;

/**
 * Turns the gate's request events into signed webhook deliveries, whoever caused them
 * (HTTP routes or code calling the gate directly): opened, decided (approve-with-edits
 * decides the original), executed (the approval was consumed), completed, and expired.
 * Events from other replicas are theirs to deliver, so each change is sent once, by the
 * replica where it happened. Expiry is no event (it is the passing of time): requests
 * opened on this replica are checked on an interval, which a restart forgets.
 */
export function notifyByWebhook(gate: Gate, sender: WebhookSender, options: NotifierOptions): { stop(): void; settled(): Promise<void> } {
  const pending = new Set<Promise<void>>();
  const awaitingExpiry = new Map<string, number>();
  const requestOfProposal = new Map<string, string>();

  const deliver = (job: Job) => {
    const work = buildPayload(gate, job, { origin: options.origin(), argumentSummary: options.argumentSummary })
      .then((payload) => {
        if (payload !== undefined) sender.send(payload.id, options.format === 'slack' ? slackMessage(payload) : payload);
      })
      .catch(() => {
        // The store could not be read; the event is lost for the webhook, never for the request.
      })
      .finally(() => pending.delete(work));
    pending.add(work);
  };

  const unsubscribe = gate.events.subscribe((event) => {
    if (event.remote === true) return;
    const job = jobOf(event, awaitingExpiry, requestOfProposal);
    if (job !== undefined) deliver(job);
  });

  const sweep = setInterval(() => {
    const now = gate.now();
    for (const [requestId, expiresAt] of awaitingExpiry) {
      if (now < expiresAt) continue;
      awaitingExpiry.delete(requestId);
      const check = gate.approvals
        .view(requestId)
        .then((found) => {
          if (found.ok && found.view.status === 'expired') deliver({ type: 'request.expired', requestId });
        })
        .catch(() => undefined)
        .finally(() => pending.delete(check));
      pending.add(check);
    }
  }, options.expiryCheckMs ?? 15_000);
  sweep.unref();

  return {
    stop: () => {
      unsubscribe();
      clearInterval(sweep);
    },
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}

function jobOf(event: DeliveredEvent, awaitingExpiry: Map<string, number>, requestOfProposal: Map<string, string>): Job | undefined {
  switch (event.type) {
    case 'approval_requested':
      awaitingExpiry.set(event.requestId, event.expiresAt);
      return { type: 'request.created', requestId: event.requestId };
    case 'decided':
      if (event.status !== 'pending') awaitingExpiry.delete(event.requestId);
      return { type: 'request.decided', requestId: event.requestId };
    case 'edited':
      awaitingExpiry.delete(event.requestId);
      return { type: 'request.decided', requestId: event.requestId };
    case 'revoked':
      awaitingExpiry.delete(event.requestId);
      return undefined;
    case 'authorized':
      if (event.requestId === undefined) return undefined;
      if (requestOfProposal.size >= MAX_REMEMBERED) requestOfProposal.delete(requestOfProposal.keys().next().value!);
      requestOfProposal.set(event.proposalId, event.requestId);
      return { type: 'request.executed', requestId: event.requestId };
    case 'completed': {
      const requestId = requestOfProposal.get(event.proposalId);
      if (requestId === undefined) return undefined;
      requestOfProposal.delete(event.proposalId);
      return { type: 'request.completed', requestId, outcome: event.status };
    }
    default:
      return undefined;
  }
}
