import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamFetch } from './upstream-fetch.ts';

describe('upstreamFetch: a POST gets its own abort signal, linked to the transport signal while it runs', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // `/slow` answers after a second: long enough to abort it first.
    server = createServer((req, res) => {
      req.resume();
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (req.url === '/slow') setTimeout(answer, 1_000).unref();
      else answer();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('leaves no listener on the transport signal once each response arrived', async () => {
    const transport = new AbortController();
    for (let i = 0; i < 50; i++) {
      const response = await upstreamFetch(`${url}/fast`, { method: 'POST', body: '{}', signal: transport.signal });
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(0);
  });

  it('closing the transport still aborts a POST under way', async () => {
    const transport = new AbortController();
    const pending = upstreamFetch(`${url}/slow`, { method: 'POST', body: '{}', signal: transport.signal });
    setTimeout(() => transport.abort(new Error('transport closed')), 20);
    await expect(pending).rejects.toThrow('transport closed');
  });

  it('a POST on an already closed transport does not go out', async () => {
    const transport = new AbortController();
    transport.abort(new Error('transport closed'));
    await expect(upstreamFetch(`${url}/fast`, { method: 'POST', body: '{}', signal: transport.signal })).rejects.toThrow('transport closed');
  });
});
