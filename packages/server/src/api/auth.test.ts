import { requestView } from '@countersign/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, FIONA_TOKEN, makeServerFixture, PROXY_SECRET, type ServerFixture } from '../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const agentRoutes: Array<[string, string, unknown?]> = [
  ['POST', '/api/v1/proposals', { runId: 'r', sessionId: 's', principal: 'p', toolCalls: [{ id: 'c', name: 'read_file', arguments: {} }] }],
  ['GET', '/api/v1/requests/id-1'],
  ['GET', '/api/v1/requests/id-1/token'],
  ['GET', '/api/v1/requests/id-1/events'],
  ['POST', '/api/v1/dispatch', { proposalId: 'p-1', runId: 'r', callId: 'c', sessionId: 's', principal: 'p' }],
];
const approverRoutes: Array<[string, string, unknown?]> = [
  ['GET', '/api/v1/approvals'],
  ['GET', '/api/v1/approvals/id-1'],
  ['POST', '/api/v1/decisions', { requestId: 'id-1', decision: 'approve' }],
  ['GET', '/api/v1/audit'],
];

describe('authentication on the API', () => {
  it.each([...agentRoutes, ...approverRoutes])('%s %s without credentials or with a wrong bearer → 401', async (method, path, body) => {
    f = makeServerFixture();
    for (const token of [undefined, 'wrong-token', `${AGENT_TOKEN}x`]) {
      const res = await f.send(method, path, token, body);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'unauthenticated', message: expect.any(String) } });
    }
    const malformed = await f.send(method, path, undefined, body, { authorization: `Basic ${AGENT_TOKEN}` });
    expect(malformed.status).toBe(401);
  });

  it.each([...agentRoutes, ...approverRoutes])('%s %s: a missing token says "authentication required", a wrong one "invalid token", the same for every wrong one', async (method, path, body) => {
    f = makeServerFixture();
    const missing = await f.send(method, path, undefined, body);
    expect(await missing.json()).toEqual({ error: { code: 'unauthenticated', message: 'authentication required' } });
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    // Unknown, one character off a real token, or not a bearer token at all: the same answer.
    for (const headers of [{ authorization: 'Bearer wrong-token' }, { authorization: `Bearer ${AGENT_TOKEN}x` }, { authorization: `Basic ${AGENT_TOKEN}` }]) {
      const wrong = await f.send(method, path, undefined, body, headers);
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toEqual({ error: { code: 'unauthenticated', message: 'invalid token' } });
      expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    }
  });

  it.each(approverRoutes)('agent token on approver route %s %s → 403', async (method, path, body) => {
    f = makeServerFixture();
    const res = await f.send(method, path, AGENT_TOKEN, body);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('forbidden');
  });

  it.each(agentRoutes)('approver token on agent route %s %s → 403', async (method, path, body) => {
    f = makeServerFixture();
    const res = await f.send(method, path, FIONA_TOKEN, body);
    expect(res.status).toBe(403);
    expect(f.executions).toHaveLength(0);
  });

  // Agent routes answer a bearer request without waiting; these take the other (session/proxy) path.
  it.each(agentRoutes)('a proxy-authenticated approver on agent route %s %s → 403, and a bad bearer beside valid proxy headers → 401', async (method, path, body) => {
    f = makeServerFixture();
    const proxy = { 'x-auth-user': 'fiona', 'x-auth-roles': 'finance', 'x-proxy-secret': PROXY_SECRET, origin: 'http://countersign.test' };
    const asProxied = await f.send(method, path, undefined, body, proxy);
    expect(asProxied.status).toBe(403);
    expect(((await asProxied.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    for (const token of ['wrong-token', `${AGENT_TOKEN}x`]) {
      const res = await f.send(method, path, token, body, proxy);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(f.executions).toHaveLength(0);
  });

  it('an agent cannot decide: the decision endpoint refuses it and the request stays pending', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const res = await f.agent('POST', '/api/v1/decisions', { requestId, decision: 'approve' });
    expect(res.status).toBe(403);
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });
});

describe('trusted proxy headers', () => {
  const proxied = (headers: Record<string, string>) => (path: string) => f.send('GET', path, undefined, undefined, headers);

  it('identify the approver when the shared secret is present', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const asFiona = proxied({ 'x-auth-user': 'fiona', 'x-auth-roles': 'finance', 'x-proxy-secret': PROXY_SECRET });
    const res = await asFiona(`/api/v1/approvals/${requestId}`);
    expect(res.status).toBe(200);
    const decided = await f.send('POST', '/api/v1/decisions', undefined, { requestId, decision: 'approve' }, {
      'x-auth-user': 'fiona',
      'x-auth-roles': 'finance',
      'x-proxy-secret': PROXY_SECRET,
      origin: 'http://countersign.test',
    });
    expect(decided.status).toBe(200);
    expect((await requestView(f.gate, requestId))?.request.decisions).toEqual([expect.objectContaining({ approver: 'fiona' })]);
  });

  it('are ignored without the shared secret, or with a wrong one', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    for (const secret of [undefined, 'wrong-secret', `${PROXY_SECRET}x`, PROXY_SECRET.slice(1)]) {
      const headers: Record<string, string> = { 'x-auth-user': 'fiona', 'x-auth-roles': 'finance' };
      if (secret !== undefined) headers['x-proxy-secret'] = secret;
      expect((await proxied(headers)(`/api/v1/approvals/${requestId}`)).status).toBe(401);
      const decided = await f.send('POST', '/api/v1/decisions', undefined, { requestId, decision: 'approve' }, { ...headers, origin: 'http://countersign.test' });
      expect(decided.status).toBe(401);
    }
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });

  it('roles come from the proxy: a proxied user without the finance role cannot see the transfer', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const res = await proxied({ 'x-auth-user': 'fiona', 'x-auth-roles': 'ops', 'x-proxy-secret': PROXY_SECRET })(`/api/v1/approvals/${requestId}`);
    expect(res.status).toBe(404);
  });

  it('a proxied browser session may not post cross-site', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const res = await f.send('POST', '/api/v1/decisions', undefined, { requestId, decision: 'approve' }, {
      'x-auth-user': 'fiona',
      'x-auth-roles': 'finance',
      'x-proxy-secret': PROXY_SECRET,
      origin: 'http://evil.test',
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('csrf_rejected');
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });
});
