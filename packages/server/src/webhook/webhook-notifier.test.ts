import { MemoryGateEvents } from '@countersign/core/events';
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
    for (const p of payloads) expect(p.display).toEqual({ findings: [], truncated: false, argumentsFlagged: false });
  });

  it('flags hidden characters for receivers that show the call to people, without revealing the arguments', async () => {
    receiver = await startWebhookReceiver([]);
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 3, baseDelayMs: 10 } });
    const body = { ...f.proposalBody([{ id: 'call-1', name: 'transfer', arguments: { amount: 500, 'se\u200Bcret-key': 'acct-\u202E4321\u202C' } }]), principal: 'user:\u0430dmin' };
    expect((await f.agent('POST', '/api/v1/proposals', body)).status).toBe(200);
    await receiver.waitFor(1);
    const payload = JSON.parse(receiver.received[0]!.body) as WebhookPayload;
    expect(payload.request.principal).toBe('user:\u0430dmin');
    expect(payload.display.findings).toMatchObject([{ pointer: '/principal', where: 'value', kind: 'confusable' }]);
    expect(payload.display.argumentsFlagged).toBe(true);
    expect(receiver.received[0]!.body).not.toContain('cret-key');
  });

  it('a receiver that is down does not slow the API', async () => {
    receiver = await startWebhookReceiver(Array(10).fill(500));
    // Each failed delivery backs off for the longest delay (a minute), past the test timeout: an
    // API call that waited for its webhook could not answer in time.
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 10, baseDelayMs: 3_600_000 } });
    const { requestId } = await f.proposeTransfer();
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny' })).status).toBe(200);
    await receiver.waitFor(2);
    expect(receiver.received.map((d) => d.status)).toEqual([500, 500]);
  });

  it("fires for this replica's events only: another replica's decision (a remote event) is that replica's to send", async () => {
    receiver = await startWebhookReceiver([]);
    const events = new MemoryGateEvents();
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 2, baseDelayMs: 10 } }, { events });
    const { requestId } = await f.proposeTransfer();
    await receiver.waitFor(1);
    // What a replica-aware bus delivers when the decision was made elsewhere.
    events.deliver({ type: 'decided', at: 0, requestId, approver: 'fiona', decision: 'approve', status: 'approved', runId: 'run-1', proposalId: 'p', callId: 'call-1', toolName: 'transfer', remote: true });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received.map((d) => (JSON.parse(d.body) as WebhookPayload).type)).toEqual(['request.created']);
  });
});
