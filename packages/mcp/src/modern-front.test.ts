import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway, type Gateway } from './gateway.ts';
import { type ModernFront, modernGatewayFront } from './modern-front.ts';
import { makeTestGate } from './testing/gateway-fixture.ts';

const POLICY = `
version: 1
rules:
  - id: reads
    tool: balance
    verdict: allow
  - id: payments
    tool: pay
    verdict: approve
    approval:
      approvers: { roles: [finance] }
      ttlSeconds: 600
`;
const FINANCE = { id: 'fiona', roles: ['finance'] };
const APPROVALS = 'https://approvals.example';
const ENDPOINT = 'http://gateway.test/mcp';

async function bank() {
  const server = new McpServer({ name: 'bank', version: '1.0.0' });
  const ran: unknown[] = [];
  server.registerTool('balance', { inputSchema: {} }, async () => ({ content: [{ type: 'text' as const, text: '42' }] }));
  server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async (args) => {
    ran.push(args);
    return { content: [{ type: 'text' as const, text: `paid ${args.amount} to ${args.to}` }] };
  });
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { ran, transport: gatewaySide, close: () => server.close() };
}

type Text = { content: Array<{ type: string; text?: string }>; isError?: boolean; _meta?: Record<string, unknown> };
const textOf = (result: unknown) => (result as Text).content.map((c) => c.text ?? '').join('');
const refusalOf = (result: unknown) => ((result as Text).isError === true ? ((result as Text)._meta?.countersign as Record<string, unknown>) : undefined);

/** A raw 2026-07-28 tools/call (per-request envelope in `_meta`), to send what no honest client sends. */
async function rawCall(front: ModernFront, params: Record<string, unknown>, capabilities: Record<string, unknown> = { elicitation: { url: {} } }, headers: Record<string, string> = {}) {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': capabilities,
  };
  const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { ...params, _meta: meta } };
  const response = await front.fetch(
    new Request(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': String(params.name), ...headers },
      body: JSON.stringify(body),
    }),
  );
  const text = await response.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(/data: (.*)/.exec(text)?.[1] ?? '{}');
  return json as { result?: Record<string, unknown>; error?: { code: number; message: string } };
}

describe('2026-07-28 clients: input_required with the Countersign request as request state', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup() {
    const upstream = await bank();
    const gate = makeTestGate(POLICY, true);
    const gateway: Gateway = await createGateway({ upstreams: [{ name: 'bank', transport: upstream.transport }], gate, agent: { id: 'gw' }, principal: 'user-1', approvalUrl: APPROVALS });
    const front = modernGatewayFront(gateway);
    open.push(gateway, upstream);
    const client = new ModernClient({ name: 'modern', version: '2.0.0' }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new ModernHttpTransport(new URL(ENDPOINT), { fetch: (url, init) => front.fetch(new Request(url, init)) }));
    open.push(client);
    return { upstream, gate, front, client };
  }

  it('lists and runs allowed tools; an approve call is answered input_required with a URL elicitation, and runs once after approval', async () => {
    const { upstream, gate, client } = await setup();
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['balance', 'pay']);
    expect(textOf(await client.callTool({ name: 'balance', arguments: {} }))).toBe('42');

    const elicited: Array<Record<string, unknown>> = [];
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as Record<string, unknown>;
      elicited.push(params);
      // The user opens the page; the approver approves before the client retries.
      const requestId = decodeURIComponent(String(params.url).split('/requests/')[1] ?? '');
      await gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
      return { action: 'accept' };
    });
    expect(textOf(await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }))).toBe('paid 5 to bob');
    expect(upstream.ran).toEqual([{ to: 'bob', amount: 5 }]);
    expect(elicited).toEqual([expect.objectContaining({ mode: 'url', url: expect.stringMatching(new RegExp(`^${APPROVALS}/requests/`)) })]);
    // The same call again: the approval is spent.
    expect(refusalOf(await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }))).toMatchObject({ reason: 'already_consumed' });
    expect(upstream.ran).toHaveLength(1);
  });

  it('a request state is refused when forged, when moved to another call, and when replayed', async () => {
    const { upstream, gate, front } = await setup();
    const first = await rawCall(front, { name: 'pay', arguments: { to: 'bob', amount: 5 } });
    expect(first.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    const state = String(first.result?.requestState);

    // Forged or altered: the SDK's codec refuses it before the handler (-32602).
    const forged = await rawCall(front, { name: 'pay', arguments: { to: 'bob', amount: 5 }, requestState: `${state.slice(0, -4)}AAAA` });
    expect(forged.error?.code).toBe(-32602);

    // Moved to another call (other arguments): refused, nothing runs, even once approved.
    const requestId = String((JSON.parse(Buffer.from(state.split('.')[1] ?? '', 'base64url').toString()) as { p: { requestId: string } }).p.requestId);
    await gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
    const moved = await rawCall(front, { name: 'pay', arguments: { to: 'mallory', amount: 5000 }, requestState: state });
    expect(refusalOf(moved.result)).toMatchObject({ reason: 'invalid_request_state' });
    expect(upstream.ran).toEqual([]);

    // The honest retry runs the approved call; the same state again is refused as used.
    const honest = await rawCall(front, { name: 'pay', arguments: { amount: 5, to: 'bob' }, requestState: state });
    expect(textOf(honest.result)).toBe('paid 5 to bob');
    const replay = await rawCall(front, { name: 'pay', arguments: { to: 'bob', amount: 5 }, requestState: state });
    expect(refusalOf(replay.result)).toMatchObject({ reason: 'invalid_request_state', message: 'the request state was already used' });
    expect(upstream.ran).toHaveLength(1);
  });

  it('a client that declared no elicitation.url gets the typed "approval required" result with the link, not a round', async () => {
    const { upstream, front } = await setup();
    const answer = await rawCall(front, { name: 'pay', arguments: { to: 'bob', amount: 5 } }, {});
    expect(answer.result?.resultType).not.toBe('input_required');
    expect(refusalOf(answer.result)).toMatchObject({ reason: 'approval_required', approvalUrl: expect.stringContaining(`${APPROVALS}/requests/`) });
    expect(upstream.ran).toEqual([]);
  });

  it('the x-countersign-run header names the run here too: a call the run did not record is refused, not run directly', async () => {
    const { upstream, front } = await setup();
    const named = await rawCall(front, { name: 'pay', arguments: { to: 'bob', amount: 5 } }, undefined, { 'x-countersign-run': 'run-unrecorded' });
    expect(refusalOf(named.result)).toMatchObject({ reason: 'unknown_call' });
    expect(upstream.ran).toEqual([]);
  });

  it('a 2025-era request is refused here (the 1.x front serves those)', async () => {
    const { front } = await setup();
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } };
    const response = await front.fetch(new Request(ENDPOINT, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(init) }));
    expect(response.status).toBeGreaterThanOrEqual(400);
  });

  it('the user opened the page: the retry waits for the decision instead of asking again; declined: the typed refusal, no new round', async () => {
    const { upstream, gate, client } = await setup();
    let asked = 0;
    client.setRequestHandler('elicitation/create', async (request) => {
      asked++;
      const requestId = decodeURIComponent(String((request.params as { url?: string }).url).split('/requests/')[1] ?? '');
      // The approver decides a moment after the client already retried.
      setTimeout(() => void gate.approvals.decide(FINANCE, { requestId, decision: 'approve' }), 100);
      return { action: 'accept' };
    });
    expect(textOf(await client.callTool({ name: 'pay', arguments: { to: 'ann', amount: 7 } }))).toBe('paid 7 to ann');
    expect(asked).toBe(1);

    client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    const declined = await client.callTool({ name: 'pay', arguments: { to: 'eve', amount: 9 } });
    expect(refusalOf(declined)).toMatchObject({ reason: 'approval_required', approvalUrl: expect.stringContaining(`${APPROVALS}/requests/`) });
    expect(upstream.ran).toEqual([{ to: 'ann', amount: 7 }]);
  });
});
