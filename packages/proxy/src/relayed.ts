import type { RelayedToolMessage } from './relay-port.ts';
import type { ProxyError } from './refusal.ts';

/** The tool results a request relays to the model, each with where it sits in the body (for the error's `param`). */
export type RelayedResults = { ok: true; messages: RelayedToolMessage[]; params: string[] } | { ok: false; error: ProxyError };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
