import { afterEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver } from '../testing/webhook-receiver.ts';
import { verifyWebhookSignature } from './signature.ts';
import { type DeliveryReport, WebhookSender } from './webhook-sender.ts';

const SECRET = 'whsec-sender-test';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function setup(statuses: number[], maxAttempts = 5) {
  const receiver = await startWebhookReceiver(statuses);
  const reports: DeliveryReport[] = [];
  const sender = new WebhookSender({ url: receiver.url, secret: SECRET, maxAttempts, baseDelayMs: 10, onReport: (r) => reports.push(r) });
  cleanups.push(receiver.close, () => sender.close());
  return { receiver, sender, reports };
}

describe('WebhookSender', () => {
  it('retries with backoff: fails twice, then delivered on attempt 3, same signed body each time', async () => {
    const { receiver, sender, reports } = await setup([500, 503]);
    sender.send('evt-1', { id: 'evt-1', hello: 'world' });
    await sender.idle();
    expect(receiver.received.map((d) => d.status)).toEqual([500, 503, 200]);
    expect(receiver.received.map((d) => d.headers['countersign-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(reports).toEqual([{ eventId: 'evt-1', delivered: true, attempts: 3, lastStatus: 200 }]);
    for (const delivery of receiver.received) {
      expect(delivery.body).toBe('{"id":"evt-1","hello":"world"}');
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['countersign-event-id']).toBe('evt-1');
      const verdict = verifyWebhookSignature(
        SECRET,
        String(delivery.headers['countersign-timestamp']),
        delivery.body,
        String(delivery.headers['countersign-signature']),
        Date.now(),
        60,
      );
      expect(verdict).toEqual({ ok: true });
    }
  });

  it('a receiver detects a bad signature (wrong secret, tampered body)', async () => {
    const { receiver, sender } = await setup([]);
    sender.send('evt-2', { amount: 500 });
    await sender.idle();
    const [delivery] = receiver.received;
    const ts = String(delivery?.headers['countersign-timestamp']);
    const sig = String(delivery?.headers['countersign-signature']);
    expect(verifyWebhookSignature('not-the-secret', ts, delivery!.body, sig, Date.now(), 60)).toEqual({ ok: false, reason: 'signature_mismatch' });
    expect(verifyWebhookSignature(SECRET, ts, '{"amount":5000}', sig, Date.now(), 60)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('gives up after maxAttempts', async () => {
    const { receiver, sender, reports } = await setup([500, 500, 500, 500], 3);
    sender.send('evt-3', {});
    await sender.idle();
    expect(receiver.received).toHaveLength(3);
    expect(reports).toEqual([{ eventId: 'evt-3', delivered: false, attempts: 3, lastStatus: 500 }]);
  });

  it('retries when nothing listens, and send() never blocks the caller', async () => {
    const receiver = await startWebhookReceiver();
    const url = receiver.url;
    await receiver.close(); // the port is now closed: connection refused
    const reports: DeliveryReport[] = [];
    const sender = new WebhookSender({ url, secret: SECRET, maxAttempts: 2, baseDelayMs: 10, onReport: (r) => reports.push(r) });
    // send() hands the delivery to the background: it returns nothing to wait for, before any attempt is reported.
    expect(sender.send('evt-4', {})).toBeUndefined();
    expect(reports).toEqual([]);
    await sender.idle();
    expect(reports).toEqual([{ eventId: 'evt-4', delivered: false, attempts: 2, lastStatus: undefined }]);
  });

  it('close() stops pending retries', async () => {
    const receiver = await startWebhookReceiver([500, 500, 500]);
    cleanups.push(receiver.close);
    // The retry backs off for the longest delay (a minute), past the test timeout: only close() can end it in time.
    const sender = new WebhookSender({ url: receiver.url, secret: SECRET, maxAttempts: 5, baseDelayMs: 3_600_000 });
    sender.send('evt-5', {});
    await receiver.waitFor(1);
    await sender.close();
    expect(receiver.received).toHaveLength(1);
  });

  it('refuses a non-http URL or an empty secret', () => {
    expect(() => new WebhookSender({ url: 'file:///etc/passwd', secret: 's' })).toThrow(expect.objectContaining({ code: 'invalid_webhook' }));
    expect(() => new WebhookSender({ url: 'http://127.0.0.1/', secret: '' })).toThrow(expect.objectContaining({ code: 'invalid_webhook' }));
  });
});
