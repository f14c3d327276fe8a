import { afterEach, describe, expect, it } from 'vitest';
import { FIONA_TOKEN, makeServerFixture, RIVAL_TOKEN, type ServerFixture } from '../testing/server-fixture.ts';
import { ServerConfigError } from './options.ts';

/** The MCP endpoint `serve --mcp` mounts: only the gateway's own agent reaches the handler. */
let fixture: ServerFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('an MCP endpoint mounted on the service', () => {
  function mounted() {
    const seen: string[] = [];
    fixture = makeServerFixture({
      mcp: {
        path: '/mcp',
        agent: 'runtime',
        handle: async (request) => {
          seen.push(request.method);
          return new Response('mcp answer', { status: 200 });
        },
      },
    });
    return { f: fixture, seen };
  }

  it("is reached with the gateway agent's bearer token only", async () => {
    const { f, seen } = mounted();
    const ok = await f.agent('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('mcp answer');

    const anonymous = await f.send('POST', '/mcp', undefined, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect((await anonymous.json()) as unknown).toMatchObject({ error: { code: 'unauthenticated' } }); // JSON, not the HTML error page
    expect((await f.send('POST', '/mcp', 'not-a-token-at-all-xxxxxxxx', {})).status).toBe(401);
    // Another agent of the same service, and a person, are refused before the handler.
    expect((await f.send('POST', '/mcp', RIVAL_TOKEN, {})).status).toBe(403);
    expect((await f.send('POST', '/mcp', FIONA_TOKEN, {})).status).toBe(403);
    expect(seen).toEqual(['POST']);
  });

  it('refuses a mount path that would shadow the service', () => {
    for (const path of ['/api/v1/mcp', '/requests', '/', 'mcp', '/a/../b', '/assets/x', '/healthz', '/readyz', '/metrics']) {
      expect(() => makeServerFixture({ mcp: { path, agent: 'runtime', handle: async () => new Response('') } })).toThrow(ServerConfigError);
    }
  });
});
