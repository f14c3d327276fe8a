import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, makeServerFixture } from '../testing/server-fixture.ts';

// Over a real socket: the body limit and the security headers take adapter-specific
// fast paths (a declared Content-Length, prebuilt JSON answers) that app.request never hits.

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: Server | undefined;
let fixture: ReturnType<typeof makeServerFixture> | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server?.closeAllConnections();
  await fixture?.close();
  server = undefined;
  fixture = undefined;
});

async function listen(bodyLimitBytes = 4096): Promise<number> {
  fixture = makeServerFixture({ bodyLimitBytes });
  server = createAdaptorServer({ fetch: fixture.app.fetch, hostname: '127.0.0.1' }) as Server;
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Sends `chunks` as the body: with a Content-Length when `declare`, else chunked. */
function send(port: number, path: string, chunks: string[], headers: Record<string, string>, declare: boolean): Promise<Answer> {
  const total = chunks.reduce((n, c) => n + Buffer.byteLength(c), 0);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, ...(declare ? { 'content-length': String(total) } : {}) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    // The server may answer 413 and close before the whole body is written.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const JSON_AGENT = { 'content-type': 'application/json', authorization: `Bearer ${AGENT_TOKEN}` };
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function expectSecurityHeaders(answer: Answer): void {
  expect(answer.headers['content-security-policy']).toMatch(/^default-src 'none'/);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['x-frame-options']).toBe('DENY');
  expect(answer.headers['referrer-policy']).toBe('same-origin');
  expect(answer.headers['cache-control']).toBe('no-store');
}

describe('agent routes over @hono/node-server', () => {
  it('answer JSON with every security header, and errors keep them too', async () => {
    const port = await listen();
    const body = JSON.stringify(fixture!.proposalBody([{ id: 'c1', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]));
    const ok = await send(port, '/api/v1/proposals', [body], JSON_AGENT, true);
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('application/json');
    expect(JSON.parse(ok.body)).toMatchObject({ outcomes: [{ callId: 'c1' }] });
    expectSecurityHeaders(ok);

    const refused = await send(port, '/api/v1/authorize', ['{"proposalId":"nope"}'], { 'content-type': 'application/json' }, true);
    expect(refused.status).toBe(401);
    expectSecurityHeaders(refused);
  });

  it('a chunked body under the limit is read whole', async () => {
    const port = await listen();
    const body = JSON.stringify(fixture!.proposalBody([{ id: 'c2', name: 'transfer', arguments: { amount: 5, to: 'bob' } }]));
    const answer = await send(port, '/api/v1/proposals', [body.slice(0, 40), body.slice(40)], JSON_AGENT, false);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ outcomes: [{ callId: 'c2' }] });
  });

  // The login form has no size check of its own: only the body limit stands between it and a huge body.
  it.each([
    ['declared', true],
    ['chunked', false],
  ])('a %s body over the limit is refused 413 before any route reads it', async (_label, declare) => {
    const port = await listen(4096);
    const chunks = Array.from({ length: 20 }, (_, i) => (i === 0 ? 'username=fiona&password=' : 'a'.repeat(1000)));
    const answer = await send(port, '/login', chunks, FORM, declare);
    expect(answer.status).toBe(413);
    expectSecurityHeaders(answer);
  });
});
