import type { CallStatus, CompleteOutcome, Grant } from '@countersign/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, makeServerFixture, type ServerFixture } from '../../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

/** A small transfer (allowed by policy), authorized over HTTP: the grant the agent runs with. */
async function authorizedSmallTransfer(): Promise<Grant> {
  const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call-small', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]));
  const { outcomes } = (await res.json()) as { outcomes: Array<{ proposalId: string }> };
  const authorized = await f.agent('POST', '/api/v1/authorize', { proposalId: outcomes[0]!.proposalId, callId: 'call-small', runId: 'run-1' });
  expect(authorized.status).toBe(200);
  const body = (await authorized.json()) as { status: string; grant: Grant };
  expect(body.status).toBe('authorized');
  return body.grant;
}

describe('POST /authorize, POST /complete, GET /calls/:proposalId', () => {
  it('authorize hands the agent a grant and runs nothing; complete records the result; calls reads it back', async () => {
    f = makeServerFixture();
    const grant = await authorizedSmallTransfer();
    expect(grant.canonicalArgs).toBe('{"amount":5,"to":"bob"}');
    expect(f.executions).toEqual([]);
    expect(((await (await f.agent('GET', `/api/v1/calls/${grant.proposalId}`)).json()) as CallStatus).state).toBe('dispatched');
    const done = await f.agent('POST', '/api/v1/complete', { grant, completion: { status: 'succeeded', result: { sent: true } } });
    expect(((await done.json()) as CompleteOutcome).ok).toBe(true);
    expect(((await (await f.agent('GET', `/api/v1/calls/${grant.proposalId}`)).json()) as CallStatus).state).toBe('succeeded');
    // The approval (here: the allowed call) is spent: a second authorize is refused.
    const again = await f.agent('POST', '/api/v1/authorize', { proposalId: grant.proposalId });
    expect(await again.json()).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  });

  it("another agent's call is a 404 on every route, exactly like an unknown one", async () => {
    f = makeServerFixture();
    const grant = await authorizedSmallTransfer();
    for (const res of [
      await f.rival('POST', '/api/v1/authorize', { proposalId: grant.proposalId }),
      await f.rival('POST', '/api/v1/complete', { grant, completion: { status: 'succeeded', result: 'forged' } }),
      await f.rival('GET', `/api/v1/calls/${grant.proposalId}`),
      await f.agent('POST', '/api/v1/authorize', { proposalId: 'no-such-call' }),
      await f.agent('GET', '/api/v1/calls/no-such-call'),
      await f.agent('GET', `/api/v1/calls/${'x'.repeat(300)}`),
    ]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
    }
    // The rival's forged result was not recorded.
    expect(((await (await f.agent('GET', `/api/v1/calls/${grant.proposalId}`)).json()) as CallStatus).state).toBe('dispatched');
  });

  it('only agents, with a valid token, reach the routes', async () => {
    f = makeServerFixture();
    const grant = await authorizedSmallTransfer();
    const routes: Array<[string, string, unknown]> = [
      ['POST', '/api/v1/authorize', { proposalId: grant.proposalId }],
      ['POST', '/api/v1/complete', { grant, completion: { status: 'failed', error: 'x' } }],
      ['GET', `/api/v1/calls/${grant.proposalId}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      expect((await f.send(method, path, undefined, body)).status).toBe(401);
      expect((await f.send(method, path, 'wrong-token-wwwwwwwwwwww', body)).status).toBe(401);
      expect((await f.fiona(method, path, body)).status).toBe(403);
    }
  });

  it('bodies are strict, typed and size-limited', async () => {
    f = makeServerFixture({ bodyLimitBytes: 4096 });
    const grant = await authorizedSmallTransfer();
    const cases: Array<[string, unknown, number, string]> = [
      ['/api/v1/authorize', { proposalId: grant.proposalId, approved: true }, 400, 'unknown_field'],
      ['/api/v1/authorize', { proposalId: grant.proposalId, token: 'x'.repeat(3000), arguments: 'y'.repeat(2000) }, 413, 'payload_too_large'],
      ['/api/v1/authorize', '{"proposalId":"a","proposalId":"b"}', 400, 'malformed_json'],
      ['/api/v1/complete', { grant: { ...grant, admin: true }, completion: { status: 'succeeded', result: 1 } }, 400, 'unknown_field'],
      ['/api/v1/complete', { grant, completion: { status: 'succeeded', result: 1, error: 'both' } }, 400, 'unknown_field'],
      ['/api/v1/complete', { grant, completion: { status: 'maybe' } }, 400, 'invalid_request'],
      ['/api/v1/complete', { grant: { ...grant, v: 2 }, completion: { status: 'failed', error: 'x' } }, 400, 'invalid_request'],
    ];
    for (const [path, body, status, code] of cases) {
      const res = await f.agent('POST', path, body);
      expect([path, res.status]).toEqual([path, status]);
      const json = (await res.json()) as { error: { code: string } };
      if (code === 'malformed_json') expect(['malformed_json', 'invalid_json_value']).toContain(json.error.code);
      else expect(json.error.code).toBe(code);
    }
    const text = await f.send('POST', '/api/v1/complete', AGENT_TOKEN, JSON.stringify({ grant, completion: { status: 'failed', error: 'x' } }), {
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(415);
    // Nothing above recorded a result.
    expect(((await (await f.agent('GET', `/api/v1/calls/${grant.proposalId}`)).json()) as CallStatus).state).toBe('dispatched');
  });

  it('an edited grant is refused by complete (the ledger is the record)', async () => {
    f = makeServerFixture();
    const grant = await authorizedSmallTransfer();
    const edited = { ...grant, canonicalArgs: '{"amount":5000,"to":"mallory"}' };
    const res = await f.agent('POST', '/api/v1/complete', { grant: edited, completion: { status: 'succeeded', result: 1 } });
    expect(await res.json()).toMatchObject({ ok: false, reason: 'grant_mismatch' });
  });
});
