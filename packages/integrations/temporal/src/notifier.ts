import type { GateEvent, GateEvents } from '@countersign/core';
import type { Client } from '@temporalio/client';
import { DECISION_SIGNAL, type DecisionSignal } from './workflow/contract.ts';

/** Sends one decision signal (the part of `Client` the notifier uses, so tests can pass a fake). */
export type SignalSender = (workflowId: string, signal: DecisionSignal) => Promise<void>;

/** A sender over a real Temporal client: workflow id = Countersign run id. */
export function clientSignalSender(client: Client): SignalSender {
  return async (workflowId, signal) => {
    await client.workflow.getHandle(workflowId).signal(DECISION_SIGNAL, signal);
  };
}

/** The signal a gate event wakes the workflow with, if it is a decision. */
export function decisionSignalOf(event: GateEvent): { workflowId: string; signal: DecisionSignal } | undefined {
  switch (event.type) {
    case 'decided':
      return { workflowId: event.runId, signal: { requestId: event.requestId, decision: event.decision } };
    case 'revoked':
      return { workflowId: event.runId, signal: { requestId: event.requestId, decision: 'revoked' } };
    case 'edited':
      return { workflowId: event.runId, signal: { requestId: event.requestId, decision: 'edited' } };
    default:
      return undefined;
  }
}

/**
 * Signals the waiting workflow when the gate decides a request. Best effort (the event
 * bus is at-most-once and a signal can fail): a workflow whose signal was lost waits
 * until the request's expiry and then reports `expired`, never runs anything.
 * Returns the unsubscribe function. Use only when a Temporal server is configured.
 */
export function notifyTemporalOnDecision(events: Pick<GateEvents, 'subscribe'>, send: SignalSender, onError: (error: unknown) => void = () => {}): () => void {
  return events.subscribe(async (event) => {
    const target = decisionSignalOf(event);
    if (target === undefined) return;
    try {
      await send(target.workflowId, target.signal);
    } catch (error) {
      onError(error);
    }
  });
}
