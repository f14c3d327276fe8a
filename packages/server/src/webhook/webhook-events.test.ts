import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';
import { startWebhookReceiver } from '../testing/webhook-receiver.ts';
import type { WebhookPayload } from './webhook-notifier.ts';

const SECRET = 'whsec-events-test';
let f: ServerFixture | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
afterEach(async () => {
  await f?.close();
  await receiver?.close();
});

const payloads = () => receiver!.received.map((d) => JSON.parse(d.body) as WebhookPayload);

describe('webhook events: decisions with reasons, executed, completed, expired', () => {
  it('a decided request carries the reason; using the approval and finishing the call send executed and completed', async () => {
    receiver = await startWebhookReceiver([]);
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 1 } });
    const { requestId, callId } = await f.proposeTransfer({ amount: 500, to: 'alice' });
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', reason: 'invoice <17> & co' });
    const { token } = (await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string };
    expect(((await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId, token))).json()) as { status: string }).status).toBe('executed');
    await receiver.waitFor(4);
    const byType = new Map(payloads().map((p) => [p.type, p]));
    expect([...byType.keys()].sort()).toEqual(['request.completed', 'request.created', 'request.decided', 'request.executed']);
    const decided = byType.get('request.decided')!;
    expect(decided.request.decisions).toEqual([expect.objectContaining({ approver: 'fiona', decision: 'approve', reason: 'invoice <17> & co' })]);
    expect(decided.summary.text).toBe('transfer for user:42: now approved; 1 of 1 approval; approved by fiona (reason: invoice <17> & co)');
    expect(decided.summary).not.toHaveProperty('arguments');
    expect(byType.get('request.created')!.summary.text).toBe('transfer for user:42: approval requested; 0 of 1 approval');
    expect(byType.get('request.executed')).toMatchObject({ id: `request.executed:${requestId}`, request: { status: 'consumed', url: `${ORIGIN}/requests/${requestId}` } });
    expect(byType.get('request.completed')).toMatchObject({ id: `request.completed:${requestId}`, outcome: { status: 'succeeded' } });
  });

  it('a request nobody decided in time sends request.expired, once', async () => {
    receiver = await startWebhookReceiver([]);
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 1, expiryCheckMs: 20 } });
    const { requestId } = await f.proposeTransfer();
    await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Not expired yet: nothing more.
    expect(payloads().map((p) => p.type)).toEqual(['request.created']);
    f.clock.advance(3600_000);
    await receiver.waitFor(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(payloads().map((p) => [p.type, p.request.status])).toEqual([
      ['request.created', 'pending'],
      ['request.expired', 'expired'],
    ]);
    expect(payloads()[1]!.summary.text).toContain('expired undecided, nothing ran');
    expect(payloads()[1]!.id).toBe(`request.expired:${requestId}`);
  });

  it('a decided request is not reported expired later', async () => {
    receiver = await startWebhookReceiver([]);
    f = makeServerFixture({ webhook: { url: receiver.url, secret: SECRET, maxAttempts: 1, expiryCheckMs: 20 } });
    const { requestId } = await f.proposeTransfer();
    await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'deny', reason: 'no' });
    await receiver.waitFor(2);
    f.clock.advance(3600_000);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(payloads().map((p) => p.type).sort()).toEqual(['request.created', 'request.decided']);
  });
});

describe('Slack-compatible webhooks', () => {
  it('posts an incoming-webhook message with the summary, escaped, and a button to the request page', async () => {
    receiver = await startWebhookReceiver([]);
    f = makeServerFixture({ webhook: [{ url: receiver.url, secret: SECRET, maxAttempts: 1, format: 'slack', argumentSummary: true }] });
    const { requestId } = await f.proposeTransfer({ amount: 500, to: 'al\u202Eice<script>', memo: 'x'.repeat(200) });
    await receiver.waitFor(1);
    const message = JSON.parse(receiver.received[0]!.body) as { text: string; blocks: Array<{ type: string; text?: { text: string }; elements?: Array<{ url: string; text: { text: string } }> }> };
    // Said once, not "Approval requested: … approval requested".
    expect(message.text).toBe('transfer for user:42: approval requested; 0 of 1 approval');
    const section = message.blocks[0]!.text!.text;
    // The rule that asked and the deadline (in each reader's zone, ISO as the fallback).
    expect(section).toMatch(/^Rule `transfers` · expires <!date\^\d+\^\{date_short_pretty\} \{time\}\|\d{4}-\d\d-\d\dT[\d:.]+Z>$/m);
    expect(section).toContain('Arguments: amount: 500');
    // Display-safe: the bidi override is escaped, markup is escaped for Slack, long values are cut.
    expect(section).not.toContain('\u202E');
    expect(section).not.toContain('<script>');
    expect(section).toContain('&lt;script&gt;');
    expect(section).toContain('…');
    expect(section).toContain('hidden or look-alike characters');
    expect(message.blocks[1]).toMatchObject({ type: 'actions', elements: [{ url: `${ORIGIN}/requests/${requestId}`, text: { text: 'Review and decide' } }] });
  });

  it('refuses an unknown format', () => {
    expect(() => makeServerFixture({ webhook: { url: 'http://127.0.0.1:9/x', secret: SECRET, format: 'teams' as never } })).toThrow(
      expect.objectContaining({ code: 'invalid_webhook' }),
    );
  });
});
