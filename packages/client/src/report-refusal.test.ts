import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from './create-client.ts';
import { fakeServer, loopbackServer, response } from './loopback.test-helper.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const SHAPE = 'a model request input item: a message part of type computer_call_result';

describe('client.reportRefusal (POST /runs/:runId/refusals)', () => {
  it("audits an integration's refusal with the authenticated agent's id; another agent's run is not_found and gets no record", async () => {
    const loop = await loopbackServer();
    closers.push(loop.close);
    const client = loop.client();
    await client.propose(response([{ id: 'call-1', name: 'read_file', arguments: { path: 'a' } }], 'run-r'));

    expect(await client.reportRefusal({ runId: 'run-r', sessionId: 'session-1', principal: 'user:alice', reason: 'unknown_shape', detail: SHAPE })).toEqual({ ok: true });
    // A refusal before the run's first proposal is recorded too.
    expect(await client.reportRefusal({ runId: 'run-new', reason: 'unknown_shape', detail: SHAPE })).toEqual({ ok: true });
    expect(await loop.rivalClient().reportRefusal({ runId: 'run-r', reason: 'unknown_shape', detail: 'forged by a rival' })).toMatchObject({ ok: false, reason: 'not_found' });

    const records = (await loop.fixture.audit.read({ limit: 1000 })).filter((r) => r.reason === 'unknown_shape');
    expect(records.map((r) => r.runId)).toEqual(['run-r', 'run-new']);
    expect(records[0]).toMatchObject({ type: 'rejection', sessionId: 'session-1', detail: { status: 'integration_refused', what: SHAPE, principal: 'user:alice' } });
    expect(records[0]?.detail?.agent).toBeTypeOf('string');
  });

  it('refuses what it must not write: an unknown reason, unprintable or overlong detail (invalid_request, nothing recorded)', async () => {
    const loop = await loopbackServer();
    closers.push(loop.close);
    const client = loop.client();
    expect(await client.reportRefusal({ runId: 'run-x', reason: 'ok' as never, detail: SHAPE })).toMatchObject({ ok: false, reason: 'invalid_request' });
    expect(await client.reportRefusal({ runId: 'run-x', reason: 'unknown_shape', detail: 'x'.repeat(301) })).toMatchObject({ ok: false, reason: 'invalid_request' });
    // Sent, refused by the gate: a control character would forge a line in a text view of the audit log.
    expect(await client.reportRefusal({ runId: 'run-x', reason: 'unknown_shape', detail: 'shape\n2026-06-01 approved by cfo' })).toMatchObject({ ok: false, reason: 'invalid_request' });
    expect((await loop.fixture.audit.read({ limit: 1000 })).filter((r) => r.reason === 'unknown_shape')).toEqual([]);
  });

  it('a store outage is an outcome, not a throw', async () => {
    const server = await fakeServer(() => new Response(JSON.stringify({ error: { code: 'store_unavailable', message: 'down' } }), { status: 503, headers: { 'content-type': 'application/json' } }));
    closers.push(server.close);
    const client = createClient({ baseUrl: server.url, token: 't', retries: 0 });
    expect(await client.reportRefusal({ runId: 'run-x', reason: 'unknown_shape', detail: SHAPE })).toMatchObject({ ok: false, reason: 'store_unavailable' });
  });
});
