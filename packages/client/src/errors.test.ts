import type { Grant } from '@countersign/core';
import { afterEach, describe, expect, it } from 'vitest';
import { CountersignClientError } from './client-error.ts';
import { createClient } from './create-client.ts';
import { fakeServer, loopbackServer, response } from './loopback.test-helper.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function thrown(promise: Promise<unknown>): Promise<CountersignClientError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CountersignClientError);
    return error as CountersignClientError;
  }
  throw new Error('expected a CountersignClientError');
}

const GRANT: Grant = {
  v: 1,
  proposalId: 'p-1',
  runId: 'run-1',
  sessionId: 'session-1',
  principal: 'user:42',
  agent: 'runtime',
  callId: 'call-1',
  toolName: 'transfer',
  canonicalArgs: '{}',
  argsDigest: 'a'.repeat(64),
  authorizedAt: 1,
};
const CALL = response([{ id: 'call-1', name: 'transfer', arguments: { amount: 5, to: 'a' } }]);

/** A fetch that records each attempt and answers with `answer`. */
function countingFetch(answer: () => Promise<Response>) {
  const calls: string[] = [];
  return {
    calls,
    fetch: async (input: string, init: RequestInit) => {
      calls.push(`${init.method} ${new URL(input).pathname}`);
      return answer();
    },
  };
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('transport failures are typed errors', () => {
  it('a bad agent token is unauthorized', async () => {
    const server = await loopbackServer();
    closers.push(server.close);
    const client = server.client({ token: 'not-the-agent-token-000' });
    expect((await thrown(client.propose(CALL))).code).toBe('unauthorized');
    expect((await thrown(client.authorize({ proposalId: 'p' }))).code).toBe('unauthorized');
    expect((await thrown(client.callStatus('p'))).code).toBe('unauthorized');
  });

  it('a server that is down is a network error (after the retries, for idempotent calls)', async () => {
    const down = await fakeServer(() => json(200, {}));
    await down.close();
    const client = createClient({ baseUrl: down.url, token: 't', retries: 1, retryDelayMs: 1 });
    const error = await thrown(client.callStatus('p-1'));
    expect(error.code).toBe('network');
    expect(error.message).toContain(down.url);
    expect((await thrown(client.authorize({ proposalId: 'p-1' }))).code).toBe('network');
  });

  it('garbage answers are bad_response, never a crash or a half-typed outcome', async () => {
    const answers: Array<() => Response> = [
      () => new Response('<html>hello</html>', { status: 200 }),
      () => json(200, { status: 'executed', result: 'trust me' }),
      () => json(200, { status: 'authorized', grant: { ...GRANT, v: 2 } }),
      () => json(200, { status: 'denied', reason: 'vibes', message: 'no' }),
      () => json(200, null),
      () => new Response('', { status: 404 }),
    ];
    for (const answer of answers) {
      const garbage = await fakeServer(answer);
      const client = createClient({ baseUrl: garbage.url, token: 't', retries: 0 });
      expect((await thrown(client.authorize({ proposalId: 'p-1' }))).code).toBe('bad_response');
      await garbage.close();
    }
    const wrongCount = await fakeServer(() => json(200, { outcomes: [] }));
    closers.push(wrongCount.close);
    expect((await thrown(createClient({ baseUrl: wrongCount.url, token: 't' }).propose(CALL))).code).toBe('bad_response');
  });

  it('an oversized answer is bad_response, read no further than the limit', async () => {
    const huge = await fakeServer(() => new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(64 * 1024)) }), { status: 200 }));
    closers.push(huge.close);
    const client = createClient({ baseUrl: huge.url, token: 't', retries: 0, maxResponseBytes: 1024 * 1024 });
    const error = await thrown(client.callStatus('p-1'));
    expect(error.code).toBe('bad_response');
    expect(error.message).toContain('larger than');
  });

  it('a server that never answers is a timeout', async () => {
    const stuck = await fakeServer(() => new Promise<Response>(() => {}));
    closers.push(stuck.close);
    const client = createClient({ baseUrl: stuck.url, token: 't', timeoutMs: 150, retries: 0 });
    // Nothing else can end the request: without the timeout, the test would run out its own.
    expect((await thrown(client.authorize({ proposalId: 'p-1' }))).code).toBe('timeout');
  });

  it('a 5xx after the retries is server_error; a store outage on a read is an outcome', async () => {
    const failing = countingFetch(async () => json(500, { error: { code: 'internal_error', message: 'internal error' } }));
    const client = createClient({ baseUrl: 'http://gate.invalid', token: 't', retries: 2, retryDelayMs: 1, fetch: failing.fetch });
    expect((await thrown(client.callStatus('p-1'))).code).toBe('server_error');
    expect(failing.calls).toHaveLength(3);
    const outage = countingFetch(async () => json(503, { error: { code: 'store_unavailable', message: 'the approval store is unavailable' } }));
    const reader = createClient({ baseUrl: 'http://gate.invalid', token: 't', retries: 1, retryDelayMs: 1, fetch: outage.fetch });
    expect(await reader.token('r-1')).toMatchObject({ ok: false, reason: 'store_unavailable' });
  });
});

describe('retries', () => {
  const flaky = () => countingFetch(async () => json(503, { error: { code: 'store_unavailable', message: 'down' } }));

  it('authorize is sent exactly once, whatever happens to the answer', async () => {
    for (const answer of [
      async () => json(503, { error: { code: 'store_unavailable', message: 'down' } }),
      async () => new Response('bad gateway', { status: 502 }),
      async () => {
        throw new TypeError('fetch failed');
      },
    ]) {
      const counted = countingFetch(answer);
      const client = createClient({ baseUrl: 'http://gate.invalid', token: 't', retries: 5, retryDelayMs: 1, fetch: counted.fetch });
      const error = await thrown(client.authorize({ proposalId: 'p-1', token: 'x.y.z' }));
      expect(['server_error', 'network']).toContain(error.code);
      expect(counted.calls).toEqual(['POST /api/v1/authorize']);
    }
  });

  it('idempotent calls are retried: propose, complete, token, callStatus, the long-poll', async () => {
    const attempts = async (run: (client: ReturnType<typeof createClient>) => Promise<unknown>) => {
      const counted = flaky();
      await run(createClient({ baseUrl: 'http://gate.invalid', token: 't', retries: 2, retryDelayMs: 1, fetch: counted.fetch })).catch(() => {});
      return counted.calls.length;
    };
    expect(await attempts((c) => c.propose(CALL))).toBe(3);
    expect(await attempts((c) => c.complete(GRANT, { status: 'succeeded', result: 1 }))).toBe(3);
    expect(await attempts((c) => c.token('r-1'))).toBe(3);
    expect(await attempts((c) => c.callStatus('p-1'))).toBe(3);
    expect(await attempts((c) => c.waitForDecision('r-1', { timeoutMs: 1000 }))).toBe(3);
  });

  it('a refusal is not retried', async () => {
    const counted = countingFetch(async () => json(404, { error: { code: 'not_found', message: 'no such call' } }));
    const client = createClient({ baseUrl: 'http://gate.invalid', token: 't', retries: 3, retryDelayMs: 1, fetch: counted.fetch });
    expect(await client.callStatus('p-1')).toMatchObject({ ok: false, reason: 'not_found' });
    expect(counted.calls).toHaveLength(1);
  });
});

describe('requests the wire schemas refuse never leave the client as-is', () => {
  it('an oversized token or a grant with extra fields becomes an outcome, with no request sent', async () => {
    const counted = countingFetch(async () => json(200, {}));
    const client = createClient({ baseUrl: 'http://gate.invalid', token: 't', fetch: counted.fetch });
    expect(await client.authorize({ proposalId: 'p-1', token: 'x'.repeat(9000) })).toMatchObject({ status: 'not_approved', reason: 'malformed' });
    const extended = { ...GRANT, admin: true } as Grant;
    expect(await client.complete(extended, { status: 'succeeded', result: 1 })).toMatchObject({ ok: false, reason: 'grant_mismatch' });
    expect(await client.complete(GRANT, { status: 'succeeded', result: 10n })).toMatchObject({ ok: false, reason: 'invalid_completion' });
    expect(counted.calls).toEqual([]);
  });
});
