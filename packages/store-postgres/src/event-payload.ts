import type { DeliveredEvent, GateEvent, GateEventType } from '@countersign/core/events';

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; stay well under. */
export const MAX_PAYLOAD_BYTES = 7900;

const EVENT_TYPES: ReadonlySet<GateEventType> = new Set<GateEventType>([
  'proposed',
  'approval_requested',
  'decided',
  'edited',
  'revoked',
  'token_minted',
  'authorized',
  'completed',
  'rejected',
  'definition_changed',
  'resync',
]);

/**
 * The NOTIFY payload for `event`: the event (ids and statuses only) and the publishing
 * replica's origin id, so a replica can skip its own. Events never carry arguments,
 * but ids can be long: one that does not fit is sent as a `resync`, which makes every
 * waiter on the other replicas re-read the store.
 */
export function encodePayload(origin: string, event: GateEvent): string {
  const text = JSON.stringify({ o: origin, e: event });
  if (Buffer.byteLength(text, 'utf8') < MAX_PAYLOAD_BYTES) return text;
  return JSON.stringify({ o: origin, e: { type: 'resync', at: event.at } });
}

/**
 * A notification from another replica as an event, or undefined for our own, for
 * anything malformed, and for a type we do not know. Anyone who can connect to the
 * database can NOTIFY, so this is only ever a hint: listeners re-read the store
 * before acting on it, and the webhook never sends for remote events.
 */
export function decodePayload(ownOrigin: string, text: string): DeliveredEvent | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { o: origin, e: event } = parsed as { o?: unknown; e?: unknown };
  if (typeof origin !== 'string' || origin === ownOrigin) return undefined;
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return undefined;
  const type = (event as { type?: unknown }).type;
  if (typeof type !== 'string' || !EVENT_TYPES.has(type as GateEventType)) return undefined;
  return { ...(event as GateEvent), remote: true };
}
