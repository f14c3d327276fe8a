import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectUpstream, type Upstream } from './upstream.ts';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const SESSION = 's-lean-1';
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

/**
 * A Streamable HTTP upstream scripted per tool name, written for these tests: every way
 * the spec lets a server answer a tools/call that the lean path must handle.
 */
function scriptedUpstream(seen: Seen[], hung: string[] = []): Server {
  const sse = (res: ServerResponse, events: string[]) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': SESSION });
    for (const event of events) res.write(`${event}\n\n`);
    res.end();
  };
  const json = (res: ServerResponse, message: unknown) => res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SESSION }).end(JSON.stringify(message));
  return createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      if (req.method === 'GET') {
        // The resumption of the stream `sse-resume` left unanswered: the answer, under the call's id.
        if (req.headers['last-event-id'] === 'ev-1') {
          const call = seen.find((s) => s.body.includes('"sse-resume"'));
          const id = (JSON.parse(call?.body ?? '{}') as { id?: unknown }).id;
          return sse(res, [`id: ev-2\nevent: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: text('resumed') })}`]);
        }
        return void res.writeHead(405).end();
      }
      if (req.method === 'DELETE') return void res.writeHead(200).end();
      const message = JSON.parse(body) as { id?: string | number; method?: string; params?: { name?: string; arguments?: unknown } };
      if (message.method === 'initialize') {
        return json(res, { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'scripted', version: '1' } } });
      }
      if (message.method !== 'tools/call') return void res.writeHead(202).end();
      const answer = (result: unknown) => ({ jsonrpc: '2.0', id: message.id, result });
      const args = JSON.stringify(message.params?.arguments);
      switch (req.url === '/moved-here' ? 'after-redirect' : message.params?.name) {
        case 'json':
          return json(res, answer(text(args)));
        case 'sse-chatty':
          // A notification and a request of the server's own before the answer: the SDK client's to handle.
          return sse(res, [
            ': a comment',
            'id: p1\ndata: ',
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } })}`,
            `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 'srv-ping-1', method: 'ping' })}`,
            `event: message\ndata: ${JSON.stringify(answer(text(`chatty ${args}`)))}`,
          ]);
        case 'sse-resume':
          // A priming event, then the stream closes before the answer (the spec's polling): the client resumes with GET.
          return sse(res, ['id: ev-1\ndata: ']);
        case 'hang':
          // Headers, then nothing: the call is still under way when the gateway closes the upstream.
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': SESSION });
          res.write(': working\n\n');
          req.socket.once('close', () => hung.push('closed'));
          return;
        case 'silent':
          return sse(res, [': nothing to say']);
        case 'moved':
          return void res.writeHead(307, { location: '/moved-here' }).end();
        case 'after-redirect':
          return json(res, answer(text('after redirect')));
        case 'fails':
          return json(res, { jsonrpc: '2.0', id: message.id, error: { code: -32042, message: 'the tool broke' } });
        case 'down':
          return void res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream down');
        case 'not-a-result':
          return json(res, answer({ content: 'not an array' }));
        case 'images':
          return json(res, answer({ content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] }));
        default:
          return json(res, { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'unknown tool' } });
      }
    });
  });
}

describe('tools/call to a Streamable HTTP upstream on the lean path (upstream-tool-call.ts)', () => {
  const seen: Seen[] = [];
  let server: Server;
  let upstream: Upstream;

  beforeAll(async () => {
    server = scriptedUpstream(seen);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    upstream = await connectUpstream({ name: 'scripted', url, headers: { 'X-Operator': 'op-1' } }, () => undefined);
  });
  afterAll(async () => {
    await upstream.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const callsOf = (tool: string) => seen.filter((s) => s.method === 'POST' && s.body.includes(`"name":"${tool}"`));

  it('sends exactly the ledger’s arguments text in the SDK client’s session, with its protocol version and the configured headers', async () => {
    const result = await upstream.callTool('json', '{"a":1,"b":"x"}');
    expect(result).toEqual(text('{"a":1,"b":"x"}'));
    const [sent] = callsOf('json');
    expect(JSON.parse(sent?.body ?? '')).toMatchObject({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'json', arguments: { a: 1, b: 'x' } } });
    expect(sent?.body).toContain('"arguments":{"a":1,"b":"x"}');
    // The lean path's own ids (strings), never one of the SDK client's (numbers).
    expect(JSON.parse(sent?.body ?? '')).toMatchObject({ id: expect.stringMatching(/^countersign-\d+$/) });
    expect(sent?.headers).toMatchObject({ 'mcp-session-id': SESSION, 'mcp-protocol-version': '2025-11-25', 'x-operator': 'op-1', 'content-type': 'application/json' });
    expect(sent?.headers.accept).toContain('text/event-stream');
  });

  it('takes its answer from an event stream, and leaves the server’s own messages on it to the SDK client (its ping is answered)', async () => {
    expect(await upstream.callTool('json', '{}')).toEqual(text('{}'));
    expect(await upstream.callTool('sse-chatty', '{"n":2}')).toEqual(text('chatty {"n":2}'));
    // The SDK client answered the server's ping on the session, as it would have without the lean path.
    await expect.poll(() => seen.some((s) => s.method === 'POST' && s.body.includes('"id":"srv-ping-1"') && s.body.includes('"result"'))).toBe(true);
  });

  it('a stream closed after a priming event but before the answer is resumed (GET with Last-Event-ID) and answered under the call’s id', async () => {
    expect(await upstream.callTool('sse-resume', '{}')).toEqual(text('resumed'));
    expect(seen.some((s) => s.method === 'GET' && s.headers['last-event-id'] === 'ev-1')).toBe(true);
  });

  it('a redirected call (which did not run) is made again through the SDK client, which follows it within the origin', async () => {
    expect(await upstream.callTool('moved', '{"k":"v"}')).toEqual(text('after redirect'));
    expect(seen.filter((s) => s.path === '/moved-here')).toHaveLength(1);
  });

  it('fails as the SDK client did: the upstream’s JSON-RPC error, an HTTP error, a stream that ends unanswered, a result that is not a CallToolResult', async () => {
    const error = await upstream.callTool('fails', '{}').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32042, message: expect.stringContaining('the tool broke') });
    await expect(upstream.callTool('down', '{}')).rejects.toThrow(/upstream down/);
    await expect(upstream.callTool('silent', '{}')).rejects.toThrow(/without answering/);
    await expect(upstream.callTool('not-a-result', '{}')).rejects.toThrow(/not a CallToolResult/);
  });

  it('closing the upstream fails a call under way (as the SDK client did) and ends its HTTP exchange', async () => {
    const hung: string[] = [];
    const own = scriptedUpstream([], hung);
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const closing = await connectUpstream({ name: 'closing', url: `http://127.0.0.1:${(own.address() as AddressInfo).port}/mcp` }, () => undefined);
    const call = closing.callTool('hang', '{}');
    await new Promise((r) => setTimeout(r, 50));
    await closing.close();
    await expect(call).rejects.toThrow(/Connection closed/);
    await expect.poll(() => hung).toEqual(['closed']);
    own.closeAllConnections();
    await new Promise((resolve) => own.close(resolve));
  });

  it('results the hand check does not take are checked by the SDK schema (and relayed as it returns them)', async () => {
    expect(await upstream.callTool('images', '{}')).toEqual({ content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] });
  });
});
