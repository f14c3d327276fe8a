import { MemoryDefinitionStore } from '@countersign/core/catalog';
import { afterEach, describe, expect, it } from 'vitest';
import { FIONA_TOKEN, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

/** Routes a remote MCP gateway needs beyond the plain agent API: tool admission and checks 3 and 4. */

let fixtures: ServerFixture[] = [];
afterEach(async () => {
  await Promise.all(fixtures.map((f) => f.close()));
  fixtures = [];
});

function fixture() {
  const f = makeServerFixture({}, { definitions: new MemoryDefinitionStore() });
  fixtures.push(f);
  return f;
}

const LOOKUP = { name: 'gw__lookup', description: 'Looks a customer up.', inputSchema: { type: 'object' } };
const json = async (res: Response) => (await res.json()) as Record<string, unknown> & { error?: { code: string } };

describe('POST /api/v1/tools/admission', () => {
  it("answers the agent's own tool's admission: a new definition waits for its review", async () => {
    const f = fixture();
    expect((await f.agent('PUT', '/api/v1/tools', { tools: [LOOKUP] })).status).toBe(200);
    const res = await f.agent('POST', '/api/v1/tools/admission', { toolName: 'gw__lookup' });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ ok: false, toolName: 'gw__lookup', reason: 'definition_mismatch', reviewRequestId: expect.any(String) });
  });

  it("another agent's tool is a 404 like no tool, and asking opens nothing", async () => {
    const f = fixture();
    await f.agent('PUT', '/api/v1/tools', { tools: [LOOKUP] });
    const auditBefore = (await f.gate.auditLog.read()).length;
    const rival = await f.rival('POST', '/api/v1/tools/admission', { toolName: 'gw__lookup' });
    expect(rival.status).toBe(404);
    expect((await json(rival)).error?.code).toBe('not_found');
    expect((await f.gate.auditLog.read()).length).toBe(auditBefore);
    expect((await f.agent('POST', '/api/v1/tools/admission', { toolName: 'never_registered' })).status).toBe(404);
  });

  it('refuses what is not an agent, or not the body', async () => {
    const f = fixture();
    expect((await f.send('POST', '/api/v1/tools/admission', undefined, { toolName: 'x' })).status).toBe(401);
    expect((await f.send('POST', '/api/v1/tools/admission', FIONA_TOKEN, { toolName: 'x' })).status).toBe(403);
    for (const body of [{}, { toolName: '' }, { toolName: 'x', extra: 1 }, { toolName: 7 }, '[1,']) {
      const res = await f.agent('POST', '/api/v1/tools/admission', body);
      expect(res.status).toBe(400);
    }
  });
});

describe('a tool an agent registered is that agent\'s', () => {
  it("another agent's proposal to it is denied unknown_tool over HTTP, nothing recorded; its owner's call goes to approval", async () => {
    // `transfer` runs in the agent (no tool in code): the runtime registers it, trusted on first use.
    const f = makeServerFixture({}, { definitions: new MemoryDefinitionStore(), tools: {}, trustOnFirstUse: true });
    fixtures.push(f);
    const transfer = { name: 'transfer', description: 'Move money to a recipient', inputSchema: { type: 'object' } };
    expect((await f.agent('PUT', '/api/v1/tools', { tools: [transfer] })).status).toBe(200);
    const call = [{ id: 'c-1', name: 'transfer', arguments: { amount: 500, to: 'mallory' } }];
    const rival = await f.rival('POST', '/api/v1/proposals', f.proposalBody(call, 'run-rival'));
    expect(rival.status).toBe(200);
    expect(await json(rival)).toMatchObject({ outcomes: [{ status: 'denied', reason: 'unknown_tool' }] });
    expect(await f.ledger.findProposalByCall('run-rival', 'c-1')).toBeUndefined();
    const own = await f.agent('POST', '/api/v1/proposals', f.proposalBody(call, 'run-own'));
    expect(await json(own)).toMatchObject({ outcomes: [{ status: 'approval_required' }] });
  });
});

describe('POST /api/v1/authorize/recorded (checks 3 and 4 over HTTP)', () => {
  async function recorded(f: ServerFixture, callId = 'c-1', args: unknown = { path: '/tmp/a' }) {
    const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: callId, name: 'read_file', arguments: args }]));
    expect(res.status).toBe(200);
  }

  it('the matching call gets a grant with the ledger arguments, once', async () => {
    const f = fixture();
    await recorded(f);
    const res = await f.agent('POST', '/api/v1/authorize/recorded', { runId: 'run-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ status: 'authorized', grant: { toolName: 'read_file', canonicalArgs: '{"path":"/tmp/a"}', callId: 'c-1' } });
    // The record is spent: the same call again matches nothing open.
    const again = await f.agent('POST', '/api/v1/authorize/recorded', { runId: 'run-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(again.status).toBe(404);
    const byId = await f.agent('POST', '/api/v1/authorize/recorded', { runId: 'run-1', callId: 'c-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(await json(byId)).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });
  });

  it('with the call id, a swapped tool or a changed argument gets its precise code and nothing is consumed', async () => {
    const f = fixture();
    await recorded(f);
    const swapped = await f.agent('POST', '/api/v1/authorize/recorded', { runId: 'run-1', callId: 'c-1', toolName: 'get_balance', arguments: { path: '/tmp/a' } });
    expect(await json(swapped)).toMatchObject({ status: 'not_approved', reason: 'tool_mismatch' });
    const changed = await f.agent('POST', '/api/v1/authorize/recorded', { runId: 'run-1', callId: 'c-1', toolName: 'read_file', arguments: { path: '/etc/passwd' } });
    expect(await json(changed)).toMatchObject({ status: 'not_approved', reason: 'args_mismatch' });
    const honest = await f.agent('POST', '/api/v1/authorize/recorded', { runId: 'run-1', callId: 'c-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(await json(honest)).toMatchObject({ status: 'authorized' });
  });

  it("another agent's recorded call is a 404, and stays unconsumed for its owner", async () => {
    const f = fixture();
    await recorded(f);
    const rival = await f.rival('POST', '/api/v1/authorize/recorded', { runId: 'run-1', callId: 'c-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(rival.status).toBe(404);
    expect((await json(rival)).error?.code).toBe('not_found');
    const rivalByArgs = await f.rival('POST', '/api/v1/authorize/recorded', { runId: 'run-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(rivalByArgs.status).toBe(404);
    const owner = await f.agent('POST', '/api/v1/authorize/recorded', { runId: 'run-1', callId: 'c-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(await json(owner)).toMatchObject({ status: 'authorized' });
  });

  it('refuses malformed bodies with 400 and non-agents with 401/403', async () => {
    const f = fixture();
    const ok = { runId: 'run-1', toolName: 'read_file', arguments: {} };
    expect((await f.send('POST', '/api/v1/authorize/recorded', undefined, ok)).status).toBe(401);
    expect((await f.send('POST', '/api/v1/authorize/recorded', FIONA_TOKEN, ok)).status).toBe(403);
    for (const body of [{}, { ...ok, runId: '' }, { ...ok, extra: true }, { ...ok, token: 5 }, { toolName: 'x', arguments: {} }]) {
      expect((await f.agent('POST', '/api/v1/authorize/recorded', body)).status).toBe(400);
    }
  });
});
