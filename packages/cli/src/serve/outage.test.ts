import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InProcessServe } from '../testing/serve-in-process.ts';
import { apiClient } from './testing/api-client.ts';
import { describePg, type TcpProxy } from './testing/postgres.ts';
import { type ServeBehindProxy, serveBehindProxy } from './testing/serve-behind-proxy.ts';

const AGENT = `agent-${randomBytes(12).toString('hex')}`;
const APPROVER = `approver-${randomBytes(12).toString('hex')}`;

describePg('serve when PostgreSQL becomes unreachable', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-outage-'));
  let setup: ServeBehindProxy;
  let proxy: TcpProxy;
  let server: InProcessServe;

  beforeAll(async () => {
    setup = await serveBehindProxy(['--json'], {
      cwd,
      env: { COUNTERSIGN_MASTER_SECRET: randomBytes(32).toString('hex'), COUNTERSIGN_AGENT_TOKEN: AGENT, COUNTERSIGN_APPROVER_TOKEN: APPROVER },
    });
    ({ proxy, server } = setup);
  });
  afterAll(async () => {
    await setup?.close();
    rmSync(cwd, { recursive: true, force: true });
  });

  const executions = () => server.stdout().split('\n').filter((line) => line.includes('"event":"executed"')).length;
  const body = (proposalId: string, callId: string, token?: string) => ({
    proposalId,
    runId: 'run-out',
    sessionId: 'session-out',
    principal: 'user:out',
    callId,
    ...(token === undefined ? {} : { token }),
  });

  it('answers not_approved / outcome_unknown and runs nothing; once the store is back the same approval runs once', async () => {
    const agent = apiClient(server.url, AGENT);
    const proposed = (
      await agent.post('/api/v1/proposals', {
        runId: 'run-out',
        sessionId: 'session-out',
        principal: 'user:out',
        toolCalls: [{ id: 'c1', name: 'transfer', arguments: { amount: 800, to: 'frank' } }],
      })
    ).body.outcomes[0];
    await apiClient(server.url, APPROVER).post('/api/v1/decisions', { requestId: proposed.requestId, decision: 'approve' });
    const token = (await agent.get(`/api/v1/requests/${proposed.requestId}/token`)).body.token as string;

    await proxy.cut('refuse');
    const during = await agent.post('/api/v1/dispatch', body(proposed.proposalId, 'c1', token));
    expect(during.status).toBe(200);
    // Issue #31: the token was minted by this server, so the dispatch reads nothing before
    // its consume (minted-calls.ts); the consume failed and could not be read back, so, as
    // for the proposal below, it may have committed: outcome_unknown, never a grant (before:
    // the call's read failed first, store_unavailable).
    expect(during.body).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown' });
    const proposeDuring = await agent.post('/api/v1/proposals', {
      runId: 'run-out',
      sessionId: 'session-out',
      principal: 'user:out',
      toolCalls: [{ id: 'c2', name: 'transfer', arguments: { amount: 1, to: 'x' } }],
    });
    // The proposal's write failed and could not be read back: it may have committed, so the
    // agent is told outcome_unknown (propose again), not that nothing was recorded.
    expect(proposeDuring.body.outcomes[0]).toMatchObject({ status: 'rejected', reason: 'outcome_unknown' });
    expect(executions()).toBe(0);

    await proxy.restore();
    const after = await agent.post('/api/v1/dispatch', body(proposed.proposalId, 'c1', token));
    expect(after.body).toMatchObject({ status: 'executed', callId: 'c1' });
    expect((await agent.post('/api/v1/dispatch', body(proposed.proposalId, 'c1', token))).body).toMatchObject({ reason: 'already_consumed' });
    expect(executions()).toBe(1);
  });
});
