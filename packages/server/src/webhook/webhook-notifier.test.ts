import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';
import { startWebhookReceiver } from '../testing/webhook-receiver.ts';
import { verifyWebhookSignature } from './signature.ts';
import type { WebhookPayload } from './webhook-notifier.ts';

const SECRET = 'whsec-app-test';
let f: ServerFixture | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
afterEach(async () => {
  await f?.close();
  await receiver?.close();
});

describe('webhook from the app', () => {
  it('signs a notification when a request is created and when it is decided, without the arguments', async () => {
    receiver = await startWebhookReceiver([500]);
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 3, baseDelayMs: 10 } });
    const { requestId, argsDigest } = await f.proposeTransfer({ amount: 500, to: 'alice', memo: 'secret-ish' });
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    await receiver.waitFor(3);
    const delivered = receiver.received.filter((d) => d.status === 200);
    for (const d of receiver.received) {
      const verdict = verifyWebhookSignature(SECRET, String(d.headers['countersign-timestamp']), d.body, String(d.headers['countersign-signature']), Date.now(), 60);
      expect(verdict).toEqual({ ok: true });
      expect(d.body).not.toContain('secret-ish');
    }
    const payloads = delivered.map((d) => JSON.parse(d.body) as WebhookPayload).sort((a, b) => a.type.localeCompare(b.type));
    expect(payloads).toEqual([
      expect.objectContaining({
        id: `request.created:${requestId}`,
        type: 'request.created',
        request: expect.objectContaining({ requestId, status: 'pending', toolName: 'transfer', argsDigest, url: `${ORIGIN}/requests/${requestId}` }),
      }),
      expect.objectContaining({
        id: `request.decided:${requestId}:1`,
        type: 'request.decided',
        request: expect.objectContaining({ status: 'approved', approvals: 1, decisions: [expect.objectContaining({ approver: 'fiona', decision: 'approve' })] }),
      }),
    ]);
  });

  it('a receiver that is down does not slow the API', async () => {
    receiver = await startWebhookReceiver(Array(10).fill(500));
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 10, baseDelayMs: 5_000 } });
    const started = Date.now();
    const { requestId } = await f.proposeTransfer();
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny' })).status).toBe(200);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
