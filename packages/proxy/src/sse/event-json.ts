import type { ProxyError } from '../refusal.ts';
import { isRecord } from '../relayed.ts';
import { unreadableUpstream } from '../upstream-error.ts';
import type { SseEvent } from './sse-event.ts';

/** A stream event's data as the JSON object every API shape sends; anything else cannot be checked. */
export function eventJson(event: SseEvent): { ok: true; data: Record<string, unknown> } | { ok: false; error: ProxyError } {
  let data: unknown;
  try {
    data = JSON.parse(event.data);
  } catch {
    return { ok: false, error: unreadableUpstream('a stream event is not JSON') };
  }
  return isRecord(data) ? { ok: true, data } : { ok: false, error: unreadableUpstream('a stream event is not a JSON object') };
}
