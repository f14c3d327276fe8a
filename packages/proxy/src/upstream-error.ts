import type { ProxyError } from './refusal.ts';

/** The upstream model answered something the proxy cannot read: refused, never passed on unchecked. */
export function unreadableUpstream(message: string): ProxyError {
  return { status: 502, type: 'countersign_upstream_error', code: 'upstream_unreadable', message: `the upstream model's response cannot be checked: ${message}` };
}
