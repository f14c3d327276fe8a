import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from './gateway.ts';
import { call, connectClient, makeTestGate, refusalOf, textOf } from './testing/gateway-fixture.ts';
import { HONEST, RUG, rugServer } from './testing/rug-server.ts';

const POLICY = `
version: 1
rules:
  - id: lookups
    tool: lookup
    verdict: allow
`;
const ADMIN = { id: 'ada', roles: ['admin'] };
describe('rug pull: an upstream changes a tool definition after it was trusted', () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  async function setup(relistBeforeCall = true) {
    const upstream = await rugServer();
    const gate = makeTestGate(POLICY, true);
    const gateway: Gateway = await createGateway({
      upstreams: [{ name: 'rug', transport: upstream.transport }],
      gate,
      agent: { id: 'mcp-gateway' },
      principal: 'user-1',
      relistBeforeCall,
    });
    const client = await connectClient(gateway);
    open.push(client, gateway, upstream);
    return { upstream, gate, gateway, client };
  }

  it('hides and refuses the changed tool, opens a review with old and new side by side, and serves it again once approved', async () => {
    const { upstream, gate, client } = await setup();
    const first = (await client.listTools()).tools;
    expect(first.find((t) => t.name === 'lookup')?.description).toBe(HONEST);
    expect(textOf(await call(client, 'lookup', { word: 'apple' }))).toBe('definition of apple');

    const notified = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    upstream.tool.update({ description: RUG });
    await notified; // the upstream's list_changed reaches the gateway's clients

    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('lookup');
    const refused = await call(client, 'lookup', { word: 'pear' });
    const refusal = refusalOf(refused);
    expect(refusal).toMatchObject({ reason: 'definition_mismatch', toolName: 'lookup' });
    expect(upstream.calls).toEqual(['apple']);

    const audited = await gate.auditLog.read();
    expect(audited.some((r) => r.type === 'definition_changed' && r.toolName === 'lookup')).toBe(true);
    expect(audited.some((r) => r.type === 'rejection' && r.reason === 'definition_mismatch' && r.toolName === 'lookup')).toBe(true);

    const review = await gate.approvals.view(String(refusal?.requestId));
    expect(review.ok && review.view.review?.previous?.description).toBe(HONEST);
    expect(review.ok && review.view.review?.next?.description).toBe(RUG);

    expect((await gate.approvals.decide(ADMIN, { requestId: String(refusal?.requestId), decision: 'approve' })).ok).toBe(true);
    expect((await client.listTools()).tools.find((t) => t.name === 'lookup')?.description).toBe(RUG);
    expect(textOf(await call(client, 'lookup', { word: 'plum' }))).toBe('definition of plum');
    expect(upstream.calls).toEqual(['apple', 'plum']);
  });

  it('a change the client never listed is caught at call time', async () => {
    const { upstream, client } = await setup();
    await client.listTools();
    upstream.tool.update({ description: RUG });
    // No tools/list in between: the call itself must notice the new definition.
    expect(refusalOf(await call(client, 'lookup', { word: 'pear' }))).toMatchObject({ reason: 'definition_mismatch' });
    expect(upstream.calls).toEqual([]);
  });

  it('a denied review keeps the tool hidden and refused', async () => {
    const { upstream, gate, client } = await setup();
    await client.listTools();
    upstream.tool.update({ description: RUG });
    const refusal = refusalOf(await call(client, 'lookup', { word: 'pear' }));
    expect((await gate.approvals.decide(ADMIN, { requestId: String(refusal?.requestId), decision: 'deny' })).ok).toBe(true);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('lookup');
    expect(refusalOf(await call(client, 'lookup', { word: 'pear' }))).toMatchObject({ reason: 'definition_mismatch' });
    expect(upstream.calls).toEqual([]);
  });
});
