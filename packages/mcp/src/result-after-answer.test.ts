import type { Gate, GatePort } from '@countersign/core/gate';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createGateway } from './gateway.ts';
import type { CallMode } from './recorded-call.ts';
import { connectClient, makeTestGate, payServer, textOf } from './testing/gateway-fixture.ts';

const POLICY = 'version: 1\nrules:\n  - { id: payments, tool: pay, verdict: allow }\n';
const AGENT = { id: 'runtime-agent' };
const RUN = 'run-7';
const PAID = [{ type: 'text', text: 'paid 5 to bob' }];

type Complete = GatePort['complete'];

/** `gate`, whose ports record results through `complete(real, grant, completion)` instead. */
function withComplete(gate: Gate, complete: (real: Complete, ...args: Parameters<Complete>) => ReturnType<Complete>): Gate {
  const bound = (target: object, key: string | symbol) => {
    const value = Reflect.get(target, key, target);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  return new Proxy(gate, {
    get(target, key) {
      if (key !== 'port') return bound(target, key);
      return (...args: Parameters<Gate['port']>) => {
        const port = target.port(...args);
        return new Proxy(port, { get: (p, k) => (k === 'complete' ? (...c: Parameters<Complete>) => complete(p.complete.bind(p), ...c) : bound(p, k)) });
      };
    },
  });
}

/** A recording held until `release()`; `started` once the gateway asked for it. */
function heldRecording() {
  let release = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { started: false };
  const complete = async (real: Complete, ...args: Parameters<Complete>) => {
    state.started = true;
    await gate;
    return real(...args);
  };
  return { complete, release: () => release(), state };
}

const answeredWithin = <T>(answer: Promise<T>, ms: number): Promise<T | 'not answered'> =>
  Promise.race([answer, new Promise<'not answered'>((resolve) => setTimeout(() => resolve('not answered'), ms))]);

/**
 * A direct call's result is recorded after the client's answer (off its wait: one durable
 * commit fewer before the answer); a recorded model call's before it, since the LLM proxy
 * checks it on the model's next request. Either way a result whose recording is pending or
 * lost is refused by the relay check (`not_executed`): fail closed, never open.
 */
describe('when a result is recorded: after the answer (direct calls), before it (recorded model calls)', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup(gate: Gate, calls: CallMode) {
    const upstream = await payServer();
    const gateway = await createGateway({ upstreams: [{ name: 'bank', transport: upstream.transport }], gate, agent: AGENT, principal: 'user-1', calls, runId: RUN });
    const client = await connectClient(gateway);
    open.push(client, gateway, upstream);
    await client.listTools();
    return { upstream, gateway, client };
  }

  const dispatchedCall = async (gate: Gate) => {
    const dispatch = (await gate.auditLog.read()).find((r) => r.type === 'dispatch' && r.toolName === 'pay');
    return { callId: dispatch!.callId!, proposalId: dispatch!.proposalId! };
  };

  it('a direct call is answered while its recording is pending; the relay check refuses the result until it is recorded, and close waits for it', async () => {
    const real = makeTestGate(POLICY, true);
    const held = heldRecording();
    const { upstream, gateway, client } = await setup(withComplete(real, held.complete), 'direct');

    const answer = await answeredWithin(client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }) as Promise<CallToolResult>, 2_000);
    expect(answer).not.toBe('not answered');
    expect(textOf(answer as CallToolResult)).toBe('paid 5 to bob');
    expect(upstream.ran).toHaveLength(1);
    // Started once the answer has left (the loop's next turn), and held there.
    await vi.waitFor(() => expect(held.state.started).toBe(true));

    // Ran, result not recorded yet: the call reads dispatched, and its result cannot be relayed.
    const { callId, proposalId } = await dispatchedCall(real);
    expect(await real.callStatus(proposalId, AGENT)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    const relayed = { runId: RUN, toolMessages: [{ callId, content: PAID }] };
    expect(await real.checkRelayed(relayed, AGENT)).toMatchObject({ ok: false, failures: [{ callId, reason: 'not_executed' }] });

    // The same call again meanwhile is a new call, as after a recorded result (never outcome_unknown).
    const again = await answeredWithin(client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }) as Promise<CallToolResult>, 2_000);
    expect(textOf(again as CallToolResult)).toBe('paid 5 to bob');
    expect(upstream.ran).toHaveLength(2);

    let closed = false;
    const closing = gateway.close().then(() => {
      closed = true;
    });
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    held.release();
    await closing;
    expect(await real.callStatus(proposalId, AGENT)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    expect(await real.checkRelayed(relayed, AGENT)).toMatchObject({ ok: true });
  });

  it('a store that fails between the answer and the recording: the client keeps the result, the call reads dispatched, and relaying the result is refused', async () => {
    const real = makeTestGate(POLICY, true);
    const failing = withComplete(real, async () => {
      throw new Error('store went away');
    });
    const { gateway, client } = await setup(failing, 'direct');
    expect(textOf((await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } })) as CallToolResult)).toBe('paid 5 to bob');
    await gateway.close();

    const { callId, proposalId } = await dispatchedCall(real);
    expect(await real.callStatus(proposalId, AGENT)).toMatchObject({ ok: true, call: { state: 'dispatched' } });
    expect((await real.auditLog.read()).filter((r) => r.proposalId === proposalId).map((r) => r.type)).toEqual(['proposal', 'dispatch']);
    expect(await real.checkRelayed({ runId: RUN, toolMessages: [{ callId, content: PAID }] }, AGENT)).toMatchObject({
      ok: false,
      failures: [{ callId, reason: 'not_executed' }],
    });
  });

  it('a recorded model call is answered only once its result is recorded', async () => {
    const real = makeTestGate(POLICY, true);
    const held = heldRecording();
    const { client } = await setup(withComplete(real, held.complete), 'recorded');
    await real.port(AGENT).propose({ runId: RUN, sessionId: 's-1', principal: 'user-1', toolCalls: [{ id: 'call_1', name: 'pay', arguments: { to: 'bob', amount: 5 } }] });

    const answer = client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 }, _meta: { 'countersign/callId': 'call_1' } }) as Promise<CallToolResult>;
    expect(await answeredWithin(answer, 300)).toBe('not answered');
    expect(held.state.started).toBe(true);
    held.release();
    expect(textOf(await answer)).toBe('paid 5 to bob');
    expect(await real.checkRelayed({ runId: RUN, toolMessages: [{ callId: 'call_1', content: PAID }] }, AGENT)).toMatchObject({ ok: true });
  });
});
