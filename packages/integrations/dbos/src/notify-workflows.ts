import type { DeliveredEvent, GateEvents } from '@countersign/core/events';
import { type DecisionNotice, decisionTopic } from './topic.ts';

/** Sends a message to a workflow: `DBOSClient.send` or `DBOS.send` have this shape. */
export type WorkflowSender = (workflowId: string, message: DecisionNotice, topic: string, idempotencyKey: string) => Promise<void>;

export interface NotifyWorkflowsOptions {
  /** Also send for events that happened on another replica (default false: the replica that decided sends). */
  includeRemote?: boolean | undefined;
  /** A send that failed (no such workflow: the run is not a DBOS workflow; database down). The poll fallback covers it. */
  onError?: ((error: unknown, event: DeliveredEvent) => void) | undefined;
}

/**
 * For the approval service: wakes the workflow waiting on a request when someone decides,
 * edits or revokes it. The workflow id is the run id. The message names only the request;
 * the workflow re-reads the decision from Countersign, so a lost, repeated or forged
 * message changes nothing but when it looks. Returns the unsubscribe function.
 */
export function notifyWorkflows(events: Pick<GateEvents, 'subscribe'>, send: WorkflowSender, options: NotifyWorkflowsOptions = {}): () => void {
  return events.subscribe(async (event) => {
    if (event.type !== 'decided' && event.type !== 'edited' && event.type !== 'revoked') return;
    if (event.remote === true && options.includeRemote !== true) return;
    const notice: DecisionNotice = { type: 'countersign_decision', requestId: event.requestId };
    // One message per change; the key makes a repeated event (or a second replica) send it once.
    const key = `countersign:${event.requestId}:${event.type}:${'approver' in event ? event.approver : ''}:${event.at}`;
    try {
      await send(event.runId, notice, decisionTopic(event.requestId), key);
    } catch (error) {
      options.onError?.(error, event);
    }
  });
}

/** A `WorkflowSender` over a `DBOSClient` (or anything with its `send`). */
export function clientSender(client: { send(destinationId: string, message: unknown, topic?: string, idempotencyKey?: string): Promise<void> }): WorkflowSender {
  return (workflowId, message, topic, key) => client.send(workflowId, message, topic, key);
}
