import { createHmac, timingSafeEqual } from 'node:crypto';

export const TIMESTAMP_HEADER = 'Countersign-Timestamp';
export const SIGNATURE_HEADER = 'Countersign-Signature';

/** `v1=<hex HMAC-SHA256(secret, timestamp + "." + body)>`; the timestamp is Unix seconds. */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

export type WebhookVerification =
  | { ok: true }
  | { ok: false; reason: 'malformed_timestamp' | 'timestamp_out_of_tolerance' | 'malformed_signature' | 'signature_mismatch' };

/**
 * For receivers: checks `Countersign-Signature` over the raw body and the
 * `Countersign-Timestamp` header. `now` is milliseconds since the epoch; a
 * timestamp more than `toleranceSeconds` away from it is refused, so a captured
 * delivery cannot be replayed later. The header may list several `v1=` values
 * (comma-separated, during secret rotation); one match is enough.
 */
export function verifyWebhookSignature(
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
  now: number,
  toleranceSeconds = 300,
): WebhookVerification {
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  if (Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const candidates = signature
    .split(',')
    .map((part) => part.trim())
    .filter((part) => /^v1=[0-9a-f]{64}$/.test(part))
    .map((part) => Buffer.from(part.slice(3), 'hex'));
  if (candidates.length === 0) return { ok: false, reason: 'malformed_signature' };
  const expected = Buffer.from(signWebhook(secret, timestamp, body).slice(3), 'hex');
  let matched = false;
  for (const candidate of candidates) {
    if (timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'signature_mismatch' };
}
