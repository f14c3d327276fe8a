import { afterEach, describe, expect, it } from 'vitest';
import { makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';
import { startWebhookReceiver } from '../testing/webhook-receiver.ts';

let f: ServerFixture | undefined;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
afterEach(async () => {
  await f?.close();
  await receiver?.close();
});

// Values that occur nowhere else: if any of them shows up in an audit record or a webhook
// body, raw arguments left the ledger. Every tool is treated this way (there is no
// per-tool "sensitive" switch): the audit log and webhooks carry the arguments' digest only.
const MARKERS = ['iban-DE8937040044', 'memo-zz-7c1f', 'hunter2-pw'];
const ARGS = { amount: 500, to: MARKERS[0], memo: MARKERS[1], password: MARKERS[2] };
const EDITED = { amount: 400, to: MARKERS[0], memo: `${MARKERS[1]}-edited`, password: MARKERS[2] };

describe('raw arguments never reach the audit log or webhook receivers', () => {
  it('through propose, a decision with edits, token, dispatch and execution', async () => {
    receiver = await startWebhookReceiver([]);
    f = makeServerFixture({ webhook: { url: receiver.url, secret: 'whsec-test', maxAttempts: 1, baseDelayMs: 10 } });
    const { requestId } = await f.proposeTransfer(ARGS);
    const decided = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', editedArguments: EDITED });
    expect(decided.status).toBe(200);
    // The edited call is a new proposal with its own request; approve it and run it.
    const second = await f.proposeTransfer(ARGS, 'call-2');
    await f.fiona('POST', '/api/v1/decisions', { requestId: second.requestId, decision: 'approve' });
    const token = ((await (await f.agent('GET', `/api/v1/requests/${second.requestId}/token`)).json()) as { token: string }).token;
    const ran = await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody('call-2', token));
    expect(((await ran.json()) as { status: string }).status).toBe('executed');
    expect(f.executions.length).toBe(1);
    await receiver.waitFor(4);

    const records = await f.audit.read({ limit: 1000 });
    expect(records.map((r) => r.type)).toEqual(expect.arrayContaining(['proposal', 'decision', 'dispatch', 'result']));
    const logged = JSON.stringify(records);
    const sent = receiver.received.map((d) => d.body).join('\n');
    for (const marker of MARKERS) {
      expect(logged, `audit log holds ${marker}`).not.toContain(marker);
      expect(sent, `webhook body holds ${marker}`).not.toContain(marker);
    }
  });
});
