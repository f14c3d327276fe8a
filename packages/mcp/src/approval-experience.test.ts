import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, type ElicitRequest, ElicitRequestSchema, ElicitationCompleteNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type GatewayOptions } from './gateway.ts';
import { startHttpFront } from './http-front.ts';
import { FINANCE, makeTestGate, PAY_POLICY, payServer, refusalOf, textOf } from './testing/gateway-fixture.ts';


const APPROVALS = 'https://approvals.example';

type ElicitParams = ElicitRequest['params'] & { url?: string; elicitationId?: string };

describe('the approval experience of a tools/call that needs approval', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup(capabilities: Record<string, unknown>, options: Partial<GatewayOptions> = {}) {
    const upstream = await payServer();
    const gate = makeTestGate(PAY_POLICY, true);
    const gateway = await createGateway({
      upstreams: [{ name: 'bank', transport: upstream.transport }],
      gate,
      agent: { id: 'gw' },
      principal: 'user-1',
      approvalUrl: APPROVALS,
      approvalWaitMs: 0,
      elicitationWaitMs: 2_000,
      progressIntervalMs: 40,
      ...options,
    });
    const client = new Client({ name: 'desk', version: '1.0.0' }, { capabilities: capabilities as never });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide);
    await client.connect(clientSide);
    open.push(client, gateway, upstream);
    await client.listTools();
    const pendingRequestId = async () => {
      const listed = await gate.approvals.listFor(FINANCE);
      return listed.ok ? listed.views[0]?.request.requestId : undefined;
    };
    return { upstream, gate, client, pendingRequestId };
  }

  const pay = (client: Client, onprogress?: (p: { progress: number; message?: string | undefined }) => void) =>
    client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }, undefined, onprogress === undefined ? {} : { onprogress }) as Promise<CallToolResult>;

  it('a client that declared elicitation.url gets a URL elicitation to the approval page of exactly this request; approved there, the call runs once', async () => {
    const { upstream, gate, client } = await setup({ elicitation: { url: {} } });
    const elicited: ElicitParams[] = [];
    const completed: string[] = [];
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
      completed.push(n.params.elicitationId);
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as ElicitParams;
      elicited.push(params);
      // The user opens the page; a finance approver approves there a moment later.
      const requestId = decodeURIComponent(String(params.url).split("/requests/")[1] ?? "");
      setTimeout(() => void gate.approvals.decide(FINANCE, { requestId, decision: 'approve' }), 50);
      return { action: 'accept' };
    });
    const result = await pay(client);
    expect(textOf(result)).toBe('paid 5 to bob');
    expect(upstream.ran).toEqual([{ to: 'bob', amount: 5 }]);
    expect(elicited).toHaveLength(1);
    expect(elicited[0]).toMatchObject({ mode: 'url', url: expect.stringMatching(new RegExp(`^${APPROVALS}/requests/[^/]+$`)) });
    expect(completed).toEqual([elicited[0]?.elicitationId]);
    // The identical call again: the approval is spent, nothing is asked and nothing runs.
    expect(refusalOf(await pay(client))).toMatchObject({ reason: 'already_consumed' });
    expect(elicited).toHaveLength(1);
    expect(upstream.ran).toHaveLength(1);
  });

  it('accepting the elicitation is not an approval: with no decision the call answers approval_required and never runs', async () => {
    const { upstream, client } = await setup({ elicitation: { url: {} } }, { elicitationWaitMs: 150 });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept' }));
    const refusal = refusalOf(await pay(client));
    expect(refusal).toMatchObject({ reason: 'approval_required', approvalUrl: expect.stringContaining(`${APPROVALS}/requests/`) });
    expect(upstream.ran).toEqual([]);
  });

  it('declined: approval_required at once, the request stays open, and the identical retry runs after approval without a second elicitation', async () => {
    // A wait after the elicitation of an hour, past the test timeout: the call can only answer in time if it does not sit it out.
    const { upstream, gate, client, pendingRequestId } = await setup({ elicitation: { url: {} } }, { elicitationWaitMs: 3_600_000 });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'decline' };
    });
    expect(refusalOf(await pay(client))).toMatchObject({ reason: 'approval_required' });
    const requestId = await pendingRequestId();
    expect((await gate.approvals.decide(FINANCE, { requestId: String(requestId), decision: 'approve' })).ok).toBe(true);
    expect(textOf(await pay(client))).toBe('paid 5 to bob');
    expect(asked).toBe(1);
    expect(upstream.ran).toHaveLength(1);
  });

  it('an approver’s edit: the retry runs the edited call and its result says in _meta which call ran', async () => {
    const { upstream, gate, client, pendingRequestId } = await setup({});
    expect(refusalOf(await pay(client))).toMatchObject({ reason: 'approval_required' });
    const requestId = String(await pendingRequestId());
    expect((await gate.approvals.decide(FINANCE, { requestId, decision: 'approve', editedArguments: { to: 'bob', amount: 4 } })).ok).toBe(true);
    const result = await pay(client);
    expect(textOf(result)).toBe('paid 4 to bob');
    expect(upstream.ran).toEqual([{ to: 'bob', amount: 4 }]);
    expect(result.isError).toBeUndefined();
    expect((result._meta as { countersign?: unknown } | undefined)?.countersign).toMatchObject({
      edited: { toolName: 'pay', arguments: { to: 'bob', amount: 4 }, proposalId: expect.any(String), originalProposalId: expect.any(String) },
    });
  });

  it('a client that sent no progress token gets the link before its request timeout, however long approvalWaitMs is', async () => {
    // approvalWaitMs past the client's timeout (the README once advised 60 s, the SDK's default timeout).
    const { upstream, client } = await setup({}, { approvalWaitMs: 60_000, noProgressWaitMs: 300 });
    const result = (await client.callTool({ name: 'pay', arguments: { to: 'bob', amount: 5 } }, undefined, { timeout: 1_000 })) as CallToolResult;
    expect(refusalOf(result)).toMatchObject({ reason: 'approval_required', approvalUrl: expect.stringContaining(`${APPROVALS}/requests/`) });
    expect(upstream.ran).toEqual([]);
  });

  it('a client without elicitation.url gets no elicitation: progress notifications while it waits, then the typed refusal with the link', async () => {
    const { upstream, client } = await setup({ elicitation: { form: {} } }, { approvalWaitMs: 300 });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'accept', content: {} };
    });
    const progress: number[] = [];
    const refusal = refusalOf(await pay(client, (p) => progress.push(p.progress)));
    expect(refusal).toMatchObject({ reason: 'approval_required', approvalUrl: expect.stringContaining(`${APPROVALS}/requests/`) });
    expect(asked).toBe(0);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b)); // increasing, as the spec requires
    expect(upstream.ran).toEqual([]);
  });

  it('approved while the call waits: the same tools/call runs it', async () => {
    const { upstream, gate, client, pendingRequestId } = await setup({}, { approvalWaitMs: 5_000 });
    const call = pay(client, () => undefined);
    let requestId: string | undefined;
    while (requestId === undefined) {
      await new Promise((r) => setTimeout(r, 20));
      requestId = await pendingRequestId();
    }
    await gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
    expect(textOf(await call)).toBe('paid 5 to bob');
    expect(upstream.ran).toEqual([{ to: 'bob', amount: 5 }]);
  });

  it('denied while the call waits: a typed refusal, nothing runs', async () => {
    const { upstream, gate, client, pendingRequestId } = await setup({}, { approvalWaitMs: 5_000 });
    const call = pay(client);
    let requestId: string | undefined;
    while (requestId === undefined) {
      await new Promise((r) => setTimeout(r, 20));
      requestId = await pendingRequestId();
    }
    await gate.approvals.decide(FINANCE, { requestId, decision: 'deny' });
    expect(refusalOf(await call)).toMatchObject({ reason: 'approval_denied' });
    expect(upstream.ran).toEqual([]);
  });

  it('over Streamable HTTP too: the elicitation rides the call, and the approved call runs in the same tools/call', async () => {
    const upstream = await payServer();
    const gate = makeTestGate(PAY_POLICY, true);
    const gateway = await createGateway({ upstreams: [{ name: 'bank', transport: upstream.transport }], gate, agent: { id: 'gw' }, principal: 'user-1', approvalUrl: APPROVALS });
    const token = 'http-elicitation-test-token-0123456789';
    const front = await startHttpFront({ gateway, bearerToken: token });
    const client = new Client({ name: 'desk', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
    open.push(client, front, gateway, upstream);
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const requestId = decodeURIComponent(String((request.params as ElicitParams).url).split('/requests/')[1] ?? '');
      setTimeout(() => void gate.approvals.decide(FINANCE, { requestId, decision: 'approve' }), 50);
      return { action: 'accept' };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(front.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    await client.listTools();
    expect(textOf(await pay(client))).toBe('paid 5 to bob');
    expect(upstream.ran).toEqual([{ to: 'bob', amount: 5 }]);
  });
});
