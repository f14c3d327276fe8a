import { MemoryDefinitionStore } from '@countersign/core/catalog';
import { afterEach, describe, expect, it } from 'vitest';
import { type Loopback, loopbackServer, response } from './loopback.test-helper.ts';

let server: Loopback;
afterEach(async () => {
  await server.close();
});

const LOOKUP = { name: 'gw__lookup', description: 'Looks a customer up.', inputSchema: { type: 'object' } };

describe('client.admitTool and client.authorizeMatchingCall (what a remote MCP gateway needs)', () => {
  it("admitTool answers the agent's own tool; another agent's is unknown_tool", async () => {
    server = await loopbackServer({}, { definitions: new MemoryDefinitionStore(), trustOnFirstUse: true });
    const client = server.client();
    expect(await client.registerTools([LOOKUP])).toMatchObject({ ok: true });
    expect(await client.admitTool('gw__lookup')).toMatchObject({ ok: true, toolName: 'gw__lookup' });
    expect(await server.rivalClient().admitTool('gw__lookup')).toMatchObject({ ok: false, reason: 'unknown_tool' });
    expect(await client.admitTool('nothing_here')).toMatchObject({ ok: false, reason: 'unknown_tool' });
    expect(await client.admitTool('')).toMatchObject({ ok: false, reason: 'unknown_tool' });
  });

  it('authorizeMatchingCall: the recorded call is authorized once; a changed one gets its code; another agent gets unknown_call', async () => {
    server = await loopbackServer();
    const client = server.client();
    await client.propose(response([{ id: 'c-1', name: 'read_file', arguments: { path: '/tmp/a' } }]));
    expect(await server.rivalClient().authorizeMatchingCall({ runId: 'run-1', callId: 'c-1', toolName: 'read_file', arguments: { path: '/tmp/a' } })).toMatchObject({
      status: 'not_approved',
      reason: 'unknown_call',
    });
    expect(await client.authorizeMatchingCall({ runId: 'run-1', callId: 'c-1', toolName: 'read_file', arguments: { path: '/etc' } })).toMatchObject({ reason: 'args_mismatch' });
    const granted = await client.authorizeMatchingCall({ runId: 'run-1', toolName: 'read_file', arguments: { path: '/tmp/a' } });
    expect(granted).toMatchObject({ status: 'authorized', grant: { callId: 'c-1', canonicalArgs: '{"path":"/tmp/a"}' } });
    expect(await client.authorizeMatchingCall({ runId: 'run-1', toolName: 'read_file', arguments: { path: '/tmp/a' } })).toMatchObject({ reason: 'unknown_call' });
    expect(await client.authorizeMatchingCall({ runId: '', toolName: 'read_file', arguments: {} })).toMatchObject({ status: 'not_approved', reason: 'malformed' });
  });
});
