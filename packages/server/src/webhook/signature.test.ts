import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './signature.ts';

const secret = 'whsec-test';
const body = '{"id":"request.created:1","type":"request.created"}';
const now = Date.UTC(2026, 5, 1, 12);
const ts = String(Math.floor(now / 1000));

describe('webhook signatures', () => {
  it('v1 is the hex HMAC-SHA256 of timestamp + "." + body', () => {
    const expected = createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
    expect(signWebhook(secret, ts, body)).toBe(`v1=${expected}`);
  });

  it('verifies a genuine signature, also among several (rotation)', () => {
    const sig = signWebhook(secret, ts, body);
    expect(verifyWebhookSignature(secret, ts, body, sig, now, 300)).toEqual({ ok: true });
    expect(verifyWebhookSignature(secret, ts, body, `v1=${'0'.repeat(64)}, ${sig}`, now, 300)).toEqual({ ok: true });
  });

  it('detects a changed body, timestamp, secret or signature', () => {
    const sig = signWebhook(secret, ts, body);
    const mismatch = { ok: false, reason: 'signature_mismatch' };
    expect(verifyWebhookSignature(secret, ts, body.replace('created', 'decided'), sig, now, 300)).toEqual(mismatch);
    expect(verifyWebhookSignature(secret, String(Number(ts) + 1), body, sig, now, 300)).toEqual(mismatch);
    expect(verifyWebhookSignature('other-secret', ts, body, sig, now, 300)).toEqual(mismatch);
    const flipped = sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0');
    expect(verifyWebhookSignature(secret, ts, body, flipped, now, 300)).toEqual(mismatch);
  });

  it('refuses stale or future timestamps and malformed headers', () => {
    const old = String(Number(ts) - 301);
    expect(verifyWebhookSignature(secret, old, body, signWebhook(secret, old, body), now, 300)).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    const future = String(Number(ts) + 301);
    expect(verifyWebhookSignature(secret, future, body, signWebhook(secret, future, body), now, 300)).toMatchObject({ ok: false });
    expect(verifyWebhookSignature(secret, 'yesterday', body, 'v1=00', now, 300)).toEqual({ ok: false, reason: 'malformed_timestamp' });
    for (const bad of ['', 'v1=xyz', `v0=${'0'.repeat(64)}`, `sha256=${'0'.repeat(64)}`]) {
      expect(verifyWebhookSignature(secret, ts, body, bad, now, 300)).toEqual({ ok: false, reason: 'malformed_signature' });
    }
  });
});
