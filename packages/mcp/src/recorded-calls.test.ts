import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGateway } from './gateway.ts';
import { type CallMode, recordedTarget } from './recorded-call.ts';
import { connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';

const POLICY = `
version: 1
rules:
  - id: sends
    tool: send
    verdict: allow
  - id: payments
    tool: pay
    verdict: approve
    approval:
      approvers: { roles: [finance] }
      ttlSeconds: 600
`;
const AGENT = { id: 'runtime-agent' };
const FINANCE = { id: 'fiona', roles: ['finance'] };
const RUN = 'run-42';

/** An upstream written for the test: it records exactly what it was asked to run. */
async function upstreamServer() {
  const server = new McpServer({ name: 'mail', version: '1.0.0' });
  const ran: Array<{ tool: string; args: unknown }> = [];
  const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
  server.registerTool('send', { inputSchema: { to: z.string(), body: z.string() } }, async (args) => {
    ran.push({ tool: 'send', args });
    return text(`sent to ${args.to}`);
  });
  server.registerTool('pay', { inputSchema: { to: z.string(), amount: z.number() } }, async (args) => {
    ran.push({ tool: 'pay', args });
    return text(`paid ${args.amount} to ${args.to}`);
  });
  const [gatewaySide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return { ran, transport: gatewaySide, close: () => server.close() };
}

describe('checks 3 and 4: a tools/call must be a recorded model call of the run', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup(calls: CallMode = 'recorded', runId: string | null = RUN, sessionId?: string) {
    const upstream = await upstreamServer();
    const gate = makeTestGate(POLICY, true);
    const gateway = await createGateway({ upstreams: [{ name: 'mail', transport: upstream.transport }], gate, agent: AGENT, principal: 'user-1', calls, runId: runId ?? undefined, sessionId });
    const client = await connectClient(gateway);
    open.push(client, gateway, upstream);
    await client.listTools(); // registers and pins the upstream's tools, as the runtime's first listing does
    // The runtime records the model's calls (as POST /api/v1/proposals does), under the same agent.
    const record = (id: string, name: string, args: Record<string, unknown>, run = RUN) =>
      gate.port(AGENT).propose({ runId: run, sessionId: 's-1', principal: 'user-1', toolCalls: [{ id, name, arguments: args }] });
    // The gate's refusals; each refusal the gateway gave a named call is also recorded for it (`call_refused`, see `refusalsRecorded`).
    const rejections = async () => (await gate.auditLog.read()).filter((r) => r.type === 'rejection' && r.reason !== 'call_refused').map((r) => r.reason);
    const refusalsRecorded = async () => (await gate.auditLog.read()).filter((r) => r.reason === 'call_refused').map((r) => r.callId);
    return { upstream, gate, client, record, rejections, refusalsRecorded };
  }

  const callWith = (client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
    client.callTool({ name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) }) as Promise<CallToolResult>;

  it("cross-session: a recorded call of another session than the agent's (named in _meta, or configured) is session_mismatch, audited; nothing runs", async () => {
    const { upstream, client, record, rejections, refusalsRecorded } = await setup();
    await record('call_s', 'send', { to: 'bob', body: 'hi' });
    await record('call_p', 'pay', { to: 'bob', amount: 5 });
    for (const [name, args, callId] of [['send', { to: 'bob', body: 'hi' }, 'call_s'], ['pay', { to: 'bob', amount: 5 }, 'call_p']] as const) {
      const refused = await callWith(client, name, args, { 'countersign/callId': callId, 'countersign/sessionId': 's-other' });
      expect(refusalOf(refused), name).toMatchObject({ reason: 'session_mismatch' });
    }
    expect(upstream.ran).toEqual([]);
    expect(await rejections()).toEqual(['session_mismatch', 'session_mismatch']);
    // Each refusal is recorded for its call: relayed back through the LLM proxy, it is recognised as Countersign's own.
    expect(await refusalsRecorded()).toEqual(['call_s', 'call_p']);
    // The agent's own session runs it.
    expect(refusalOf(await callWith(client, 'send', { to: 'bob', body: 'hi' }, { 'countersign/callId': 'call_s', 'countersign/sessionId': 's-1' }))).toBeUndefined();
    expect(upstream.ran).toEqual([{ tool: 'send', args: { to: 'bob', body: 'hi' } }]);

    // A gateway configured with the agent's session checks every call against it, and a client naming another is refused.
    const configured = await setup('recorded', RUN, 's-other');
    await configured.record('call_c', 'send', { to: 'carol', body: 'hi' });
    expect(refusalOf(await callWith(configured.client, 'send', { to: 'carol', body: 'hi' }, { 'countersign/callId': 'call_c' }))).toMatchObject({ reason: 'session_mismatch' });
    expect(refusalOf(await callWith(configured.client, 'send', { to: 'carol', body: 'hi' }, { 'countersign/callId': 'call_c', 'countersign/sessionId': 's-1' }))).toMatchObject({
      reason: 'session_mismatch',
      message: 'this gateway checks calls against another session',
    });
    expect(configured.upstream.ran).toEqual([]);
  });

  it('the matching call runs once, with the recorded arguments; the same call again is unknown_call', async () => {
    const { upstream, client, record } = await setup();
    await record('c1', 'send', { to: 'bob', body: 'hi' });
    // Key order differs from the record: canonical arguments match.
    expect(textOf(await callWith(client, 'send', { body: 'hi', to: 'bob' }))).toBe('sent to bob');
    expect(upstream.ran).toEqual([{ tool: 'send', args: { to: 'bob', body: 'hi' } }]);
    expect(refusalOf(await callWith(client, 'send', { to: 'bob', body: 'hi' }))).toMatchObject({ reason: 'unknown_call' });
    expect(upstream.ran).toHaveLength(1);
  });

  it('with the call id: the name swapped is tool_mismatch, an argument changed is args_mismatch, both audited and never run', async () => {
    const { upstream, client, record, rejections } = await setup();
    await record('c1', 'send', { to: 'bob', body: 'hi' });
    const meta = { 'countersign/runId': RUN, 'countersign/callId': 'c1' };
    expect(refusalOf(await callWith(client, 'pay', { to: 'bob', amount: 1 }, meta))).toMatchObject({ reason: 'tool_mismatch', toolName: 'pay' });
    expect(refusalOf(await callWith(client, 'send', { to: 'mallory', body: 'hi' }, meta))).toMatchObject({ reason: 'args_mismatch' });
    expect(await rejections()).toEqual(['tool_mismatch', 'args_mismatch']);
    expect(upstream.ran).toEqual([]);
    // The record is untouched by the refusals: the honest call still runs, once.
    expect(textOf(await callWith(client, 'send', { to: 'bob', body: 'hi' }, meta))).toBe('sent to bob');
    expect(refusalOf(await callWith(client, 'send', { to: 'bob', body: 'hi' }, meta))).toMatchObject({ reason: 'already_consumed' });
  });

  it('a call nobody recorded (changed, another tool, another run, an unknown call id) is unknown_call and audited', async () => {
    const { upstream, client, record, rejections } = await setup();
    await record('c1', 'send', { to: 'bob', body: 'hi' });
    await record('c9', 'send', { to: 'eve', body: 'hi' }, 'other-run');
    expect(refusalOf(await callWith(client, 'send', { to: 'mallory', body: 'hi' }))).toMatchObject({ reason: 'unknown_call' });
    expect(refusalOf(await callWith(client, 'pay', { to: 'bob', amount: 5 }))).toMatchObject({ reason: 'unknown_call' });
    expect(refusalOf(await callWith(client, 'send', { to: 'eve', body: 'hi' }))).toMatchObject({ reason: 'unknown_call' });
    expect(refusalOf(await callWith(client, 'send', { to: 'bob', body: 'hi' }, { 'countersign/runId': RUN, 'countersign/callId': 'c2' }))).toMatchObject({
      reason: 'unknown_call',
    });
    expect(await rejections()).toEqual(['unknown_call', 'unknown_call', 'unknown_call', 'unknown_call']);
    expect(upstream.ran).toEqual([]);
  });

  it('a recorded-mode gateway refuses a call that names no run, or another run than its own', async () => {
    const { upstream, client, record } = await setup('recorded', null);
    await record('c1', 'send', { to: 'bob', body: 'hi' });
    expect(refusalOf(await callWith(client, 'send', { to: 'bob', body: 'hi' }))).toMatchObject({ reason: 'unknown_call' });
    expect(textOf(await callWith(client, 'send', { to: 'bob', body: 'hi' }, { 'countersign/runId': RUN }))).toBe('sent to bob');
    const pinned = await setup('recorded', RUN);
    expect(refusalOf(await callWith(pinned.client, 'send', { to: 'bob', body: 'hi' }, { 'countersign/runId': 'other-run' }))).toMatchObject({ reason: 'run_mismatch' });
    expect(refusalOf(await callWith(pinned.client, 'send', { to: 'bob', body: 'hi' }, { 'countersign/runId': 7 }))).toMatchObject({ reason: 'invalid_meta' });
    expect(upstream.ran).toHaveLength(1);
  });

  it('a direct-mode gateway applies the checks to a call whose client names a run', async () => {
    const { upstream, client, record } = await setup('direct', null);
    await record('c1', 'send', { to: 'bob', body: 'hi' });
    expect(refusalOf(await callWith(client, 'send', { to: 'eve', body: 'hi' }, { 'countersign/runId': RUN }))).toMatchObject({ reason: 'unknown_call' });
    // Without _meta, direct mode: the call is itself the proposal.
    expect(textOf(await callWith(client, 'send', { to: 'eve', body: 'hi' }))).toBe('sent to eve');
    expect(upstream.ran).toEqual([{ tool: 'send', args: { to: 'eve', body: 'hi' } }]);
  });

  it('a recorded call that needs approval runs after the approval, exactly as recorded', async () => {
    const { upstream, gate, client, record } = await setup();
    const [proposed] = await record('c1', 'pay', { to: 'bob', amount: 30 });
    if (proposed?.status !== 'approval_required') throw new Error(JSON.stringify(proposed));
    expect(refusalOf(await callWith(client, 'pay', { to: 'bob', amount: 30 }))).toMatchObject({ reason: 'approval_required', requestId: proposed.requestId });
    expect((await gate.approvals.decide(FINANCE, { requestId: proposed.requestId, decision: 'approve' })).ok).toBe(true);
    expect(refusalOf(await callWith(client, 'pay', { to: 'bob', amount: 3000 }))).toMatchObject({ reason: 'unknown_call' });
    expect(textOf(await callWith(client, 'pay', { amount: 30, to: 'bob' }))).toBe('paid 30 to bob');
    expect(upstream.ran).toEqual([{ tool: 'pay', args: { to: 'bob', amount: 30 } }]);
  });

  it('over HTTP the x-countersign-run header names the run; a _meta run that differs from it is run_mismatch', () => {
    const settings = { mode: 'recorded' as const, authorizeMatchingCall: async () => ({ status: 'denied' as const, reason: 'policy_deny' as const, message: '' }) };
    expect(recordedTarget(settings, 'send', undefined, RUN)).toEqual({ ok: true, runId: RUN, callId: undefined });
    expect(recordedTarget(settings, 'send', { 'countersign/runId': RUN, 'countersign/callId': 'c1' }, RUN)).toEqual({ ok: true, runId: RUN, callId: 'c1' });
    const mismatch = recordedTarget(settings, 'send', { 'countersign/runId': 'other-run' }, RUN);
    expect(mismatch?.ok === false ? refusalOf(mismatch.refusal) : undefined).toMatchObject({ reason: 'run_mismatch' });
  });
});
