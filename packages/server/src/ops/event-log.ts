import type { DeliveredEvent } from '@countersign/core/events';
import type { Gate } from '@countersign/core/gate';
import type { Logger } from 'pino';

/**
 * One log line per lifecycle event of this replica: the event type as `event`, the
 * ids, and for refusals the reason code. Events carry no arguments, results or
 * tokens (see core/events), and only the fields named here are copied.
 */
export function logGateEvents(gate: Gate, logger: Logger): () => void {
  // Nothing would be written: no listener, so the gate's bus does no work for it.
  if (!logger.isLevelEnabled('warn')) return () => {};
  return gate.events.subscribe((event) => {
    if (event.remote === true || event.type === 'resync') return;
    const line = { event: `gate.${event.type}`, ...fieldsOf(event) };
    if (event.type === 'rejected') logger.warn(line);
    else logger.info(line);
  });
}

function fieldsOf(event: DeliveredEvent): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const key of LOGGED_FIELDS) {
    const value = (event as unknown as Record<string, unknown>)[key];
    if (value !== undefined) picked[key] = value;
  }
  return picked;
}

const LOGGED_FIELDS = [
  'runId',
  'proposalId',
  'callId',
  'toolName',
  'requestId',
  'verdict',
  'decision',
  'status',
  'approver',
  'agent',
  'stage',
  'reason',
  'editedRequestId',
  'pinStatus',
] as const;
