import type { Agent } from '@countersign/core/gate';
import { lostAuthorizeReply } from '@countersign/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from './gateway.ts';
import type { GatewayGate } from './gateway-gate.ts';
import { FINANCE, makeTestGate, PAY_POLICY, payServer, refusalOf, textOf } from './testing/gateway-fixture.ts';

/**
 * The gateway's tools/call runs on core's one guarded-call machine (`guardCall`,
 * `runGranted`): these attack what the gateway used to decide with its own copy.
 */
describe('the gateway on core’s guarded path', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  /** A gateway whose port loses authorize's reply once `lose.on` is set (the consume `commits` or not). */
  async function setup(commits: boolean) {
    const upstream = await payServer();
    const gate = makeTestGate(PAY_POLICY, true);
    const lose = { on: false };
    const lossy: GatewayGate = {
      port: (agent?: Agent) => {
        const port = gate.port(agent);
        const lost = lostAuthorizeReply(port, commits);
        return { ...lost, authorize: (request) => (lose.on ? lost.authorize(request) : port.authorize(request)) };
      },
      registerTools: (definitions, agent) => gate.registerTools(definitions, agent),
      admitTool: (name) => gate.admitTool(name),
      authorizeMatchingCall: (request, agent) => gate.authorizeMatchingCall(request, agent),
    };
    const gateway = await createGateway({ upstreams: [{ name: 'bank', transport: upstream.transport }], gate: lossy, agent: { id: 'gw' }, principal: 'user-1', approvalWaitMs: 0 });
    const client = new Client({ name: 'desk', version: '1.0.0' });
    const [clientSide, gatewayServerSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(gatewayServerSide);
    await client.connect(clientSide);
    open.push(client, gateway, upstream);
    await client.listTools();
    const pay = () => client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }) as Promise<CallToolResult>;
    // Asked once (approval_required), approved by finance: the next identical call authorizes.
    expect(refusalOf(await pay())).toMatchObject({ reason: 'approval_required' });
    const listed = await gate.approvals.listFor(FINANCE);
    const requestId = listed.ok ? listed.views[0]?.request.requestId : undefined;
    expect((await gate.approvals.decide(FINANCE, { requestId: String(requestId), decision: 'approve' })).ok).toBe(true);
    return { ran: upstream.ran, pay, lose, client };
  }

  it('an authorize whose consume committed but whose reply was lost is its own refusal, outcome_unknown: nothing runs, and the retry never runs it either', async () => {
    const { ran, pay, lose } = await setup(true);
    lose.on = true;
    const first = await pay();
    expect(first.isError).toBe(true);
    expect(refusalOf(first)).toMatchObject({ reason: 'outcome_unknown', message: expect.stringContaining('do not retry') });
    lose.on = false;
    expect(refusalOf(await pay())).toMatchObject({ reason: 'already_consumed' });
    expect(ran).toEqual([]);
  });

  it('a lost reply to a consume that did not commit is settled by reading the call: an ordinary store_unavailable, and the retry runs once', async () => {
    const { ran, pay, lose } = await setup(false);
    lose.on = true;
    expect(refusalOf(await pay())).toMatchObject({ reason: 'store_unavailable', message: expect.stringContaining('nothing was consumed') });
    expect(ran).toEqual([]);
    lose.on = false;
    expect(textOf(await pay())).toBe('paid 5 to bob');
    expect(refusalOf(await pay())).toMatchObject({ reason: 'already_consumed' });
    expect(ran).toHaveLength(1);
  });

  it('tool arguments over the gate’s 1 MiB canonical limit are refused at propose, typed, and nothing runs', async () => {
    const { ran, client } = await setup(false);
    const result = (await client.callTool({ name: 'pay', arguments: { to: 'x'.repeat(1_100_000), amount: 1 } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(refusalOf(result)).toMatchObject({ reason: 'invalid_arguments' });
    expect(ran).toEqual([]);
  });
});
