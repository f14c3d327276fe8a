import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upstreamFetch } from './upstream-fetch.ts';

// As the SDK's transport sends every message: a POST, a JSON string body, redirects followed by the SDK itself.
const POST = { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"ping"}', redirect: 'manual' as const, headers: new Headers({ 'content-type': 'application/json', 'mcp-session-id': 's-1' }) };

/** Writes each event in its own chunk (as the SDK's servers flush them), then ends the stream if asked. */
function sse(res: import('node:http').ServerResponse, events: string[], end: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
  for (const event of events) res.write(`${event}\n\n`);
  if (end) res.end();
}

describe('upstreamFetch: the upstream transports’ POSTs on kept-alive node:http connections', () => {
  let server: Server;
  let url: string;
  let connections = 0;
  const seen: Array<{ body: string; session: string | undefined }> = [];
  beforeAll(async () => {
    // `/slow` answers after a second (long enough to abort it first); `/stream` opens an event stream and keeps it open.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        seen.push({ body, session: req.headers['mcp-session-id'] as string | undefined });
        const answer = () => res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end('{"ok":true}');
        if (req.url === '/slow') setTimeout(answer, 1_000).unref();
        else if (req.url === '/stream') res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: message\ndata: {"n":1}\n\n');
        else if (req.url === '/answer-stream') sse(res, [': keepalive', 'id: e1\ndata: ', 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{"method":"not a request"}}'], true);
        else if (req.url === '/progress-first')
          sse(res, ['event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}', 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}'], true);
        else if (req.url === '/comment-flood') sse(res, [`: ${'x'.repeat(1_200_000)}`, 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}'], true);
        else if (req.url === '/no-answer') sse(res, ['id: e1\ndata: '], true);
        else if (req.url === '/moved') res.writeHead(307, { location: 'https://elsewhere.example/mcp' }).end();
        else answer();
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the body and headers as given, answers JSON whole, reuses one connection, and leaves no listener on the transport signal', async () => {
    const transport = new AbortController();
    const before = connections;
    for (let i = 0; i < 50; i++) {
      const response = await upstreamFetch(`${url}/fast`, { ...POST, signal: transport.signal });
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBe('s-1');
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(seen.at(-1)).toEqual({ body: POST.body, session: 's-1' });
    expect(connections - before).toBe(1);
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(0);
  });

  it('closing the transport still aborts a POST under way', async () => {
    const transport = new AbortController();
    const pending = upstreamFetch(`${url}/slow`, { ...POST, signal: transport.signal });
    setTimeout(() => transport.abort(new Error('transport closed')), 20);
    await expect(pending).rejects.toThrow('transport closed');
  });

  it('a POST on an already closed transport does not go out', async () => {
    const transport = new AbortController();
    transport.abort(new Error('transport closed'));
    const before = seen.length;
    await expect(upstreamFetch(`${url}/fast`, { ...POST, signal: transport.signal })).rejects.toThrow('transport closed');
    expect(seen.length).toBe(before);
  });

  it('hands an event stream on as it arrives; closing the transport ends it and drops the listener', async () => {
    const transport = new AbortController();
    const response = await upstreamFetch(`${url}/stream`, { ...POST, signal: transport.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('"n":1');
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(1);
    transport.abort(new Error('transport closed'));
    await expect(reader.read()).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 20));
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(0);
  });

  it('returns a redirect unfollowed, for the SDK to judge (it follows within the origin only)', async () => {
    const response = await upstreamFetch(`${url}/moved`, { ...POST });
    expect(response.status).toBe(307);
    expect(response.headers.get('location')).toBe('https://elsewhere.example/mcp');
  });

  it('hands the SDK a stream that only answers the request as the equivalent JSON answer (keep-alives and priming events skipped)', async () => {
    const response = await upstreamFetch(`${url}/answer-stream`, POST);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('mcp-session-id')).toBe('s-1');
    expect(await response.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { method: 'not a request' } });
  });

  it('hands on the stream itself, every byte, when the upstream says something else first (a notification before the answer)', async () => {
    const response = await upstreamFetch(`${url}/progress-first`, POST);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    expect(text.indexOf('notifications/progress')).toBeGreaterThan(-1);
    expect(text.indexOf('notifications/progress')).toBeLessThan(text.indexOf('"result"'));
  });

  it('hands on the stream when it ends without an answer (the SDK decides whether to resume it)', async () => {
    const response = await upstreamFetch(`${url}/no-answer`, POST);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe('id: e1\ndata: \n\n');
  });

  it('buffers at most 1 MiB waiting for the answer: past that (a flood of comments) the SDK gets the stream', async () => {
    const response = await upstreamFetch(`${url}/comment-flood`, POST);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const text = await response.text();
    expect(text.length).toBeGreaterThan(1_200_000);
    expect(text.endsWith('"result":{}}\n\n')).toBe(true);
  });
});
