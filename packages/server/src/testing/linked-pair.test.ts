import { makeGateFixture } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { linkedPair } from './index.ts';

describe('linkedPair: a client wired to the HTTP app in memory', () => {
  it('runs the whole HTTP layer without sockets: propose, authorize, complete, callStatus', async () => {
    const fixture = makeGateFixture();
    const { client, close } = linkedPair({ gate: fixture.gate });
    const [proposed] = await client.propose({
      runId: 'run-linked',
      sessionId: 's',
      principal: 'user:1',
      toolCalls: [{ id: 'c-1', name: 'transfer', arguments: '{"amount": 3, "to": "bob"}' }],
    });
    if (proposed?.status !== 'allowed') throw new Error(JSON.stringify(proposed));
    const authorized = await client.authorize({ proposalId: proposed.proposalId });
    if (authorized.status !== 'authorized') throw new Error(JSON.stringify(authorized));
    expect(await client.complete(authorized.grant, { status: 'succeeded', result: { ok: 1 } })).toMatchObject({ ok: true });
    expect(await client.callStatus(proposed.proposalId)).toMatchObject({ ok: true, call: { state: 'succeeded' } });
    expect(fixture.executions).toEqual([]);
    await close();
  });

  it('keeps agent auth: a pair whose token is not an agent is refused', async () => {
    const { client, close } = linkedPair({ gate: makeGateFixture().gate, token: 'not-an-agent-token-000' });
    await expect(client.callStatus('p')).rejects.toMatchObject({ name: 'CountersignClientError', code: 'unauthorized' });
    await close();
  });
});
