import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCaptured } from '../testing/capture-io.ts';
import { apiClient } from './testing/api-client.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/postgres.ts';
import { type ServeProcess, spawnServe } from './testing/spawn-serve.ts';

const AGENT = `agent-${randomBytes(12).toString('hex')}`;
const APPROVER = `approver-${randomBytes(12).toString('hex')}`;
const ATTEMPTS_PER_PROCESS = 20;

describePg('two serve processes on one PostgreSQL database', () => {
  const schema = randomSchema();
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-multi-'));
  const env = {
    COUNTERSIGN_DATABASE_URL: TEST_PG_URL,
    COUNTERSIGN_PG_SCHEMA: schema,
    COUNTERSIGN_MASTER_SECRET: randomBytes(32).toString('hex'),
    COUNTERSIGN_AGENT_TOKEN: AGENT,
    COUNTERSIGN_APPROVER_TOKEN: APPROVER,
  };
  let a: ServeProcess;
  let b: ServeProcess;

  beforeAll(async () => {
    // Started together, so both run the schema migration at the same time too.
    [a, b] = await Promise.all([
      spawnServe(['--poll-interval-ms', '100'], { cwd, env }),
      spawnServe(['--poll-interval-ms', '100'], { cwd, env }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await dropSchema(schema);
    rmSync(cwd, { recursive: true, force: true });
  });

  const call = (callId: string, amount: number) => ({
    runId: 'run-mp',
    sessionId: 'session-mp',
    principal: 'user:mp',
    toolCalls: [{ id: callId, name: 'transfer', arguments: { amount, to: 'erin' } }],
  });
  const dispatchBody = (proposalId: string, callId: string, token?: string) => ({
    proposalId,
    runId: 'run-mp',
    sessionId: 'session-mp',
    principal: 'user:mp',
    callId,
    ...(token === undefined ? {} : { token }),
  });

  /** `n` dispatches to each process, all in flight at once. */
  async function raceDispatch(body: unknown, n: number): Promise<{ status: string; reason?: string }[]> {
    const attempts = [a, b].flatMap((server) =>
      Array.from({ length: n }, () => apiClient(server.url, AGENT).post('/api/v1/dispatch', body)),
    );
    return (await Promise.all(attempts)).map((response) => response.body);
  }

  const executedEvents = () => [...a.events(), ...b.events()].filter((e) => e.event === 'executed');

  it('propose through one, approve through the other, dispatch through both at once: exactly one execution', async () => {
    const agentA = apiClient(a.url, AGENT);
    const agentB = apiClient(b.url, AGENT);
    const approverB = apiClient(b.url, APPROVER);

    const proposed = (await agentA.post('/api/v1/proposals', call('big', 2500))).body.outcomes[0];
    expect(proposed.status).toBe('approval_required');

    // B knows nothing of A's memory: it reads the request from the shared store.
    const pending = (await approverB.get('/api/v1/approvals')).body;
    expect(JSON.stringify(pending)).toContain(proposed.requestId);
    const decided = await approverB.post('/api/v1/decisions', { requestId: proposed.requestId, decision: 'approve' });
    expect(decided.status).toBe(200);

    // A's long-poll sees B's decision through the store.
    const seenByA = (await agentA.get(`/api/v1/requests/${proposed.requestId}?wait=10`)).body;
    expect(seenByA.status).toBe('approved');

    // Same master secret, same ledger record: both mint the same token.
    const tokenA = (await agentA.get(`/api/v1/requests/${proposed.requestId}/token`)).body.token;
    const tokenB = (await agentB.get(`/api/v1/requests/${proposed.requestId}/token`)).body.token;
    expect(tokenA).toBe(tokenB);

    const outcomes = await raceDispatch(dispatchBody(proposed.proposalId, 'big', tokenA), ATTEMPTS_PER_PROCESS);
    expect(outcomes.filter((o) => o.status === 'executed')).toHaveLength(1);
    const losers = outcomes.filter((o) => o.status !== 'executed');
    expect(losers).toHaveLength(2 * ATTEMPTS_PER_PROCESS - 1);
    for (const loser of losers) expect(loser).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });

    // The tool itself ran once, in one of the two processes.
    await expect.poll(() => executedEvents().filter((e) => e.callId === 'big').length).toBe(1);
  });

  it('an allowed call dispatched through both at once also runs exactly once', async () => {
    const proposed = (await apiClient(b.url, AGENT).post('/api/v1/proposals', call('small', 3))).body.outcomes[0];
    expect(proposed.status).toBe('allowed');
    const outcomes = await raceDispatch(dispatchBody(proposed.proposalId, 'small'), ATTEMPTS_PER_PROCESS);
    expect(outcomes.filter((o) => o.status === 'executed')).toHaveLength(1);
    await expect.poll(() => executedEvents().filter((e) => e.callId === 'small').length).toBe(1);
  });

  it('the audit chain both processes appended to verifies, and both stop cleanly', async () => {
    const verified = await runCaptured(['audit', 'verify', '--json'], { cwd, env: { COUNTERSIGN_DATABASE_URL: TEST_PG_URL, COUNTERSIGN_PG_SCHEMA: schema } });
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout).count).toBeGreaterThan(2 * ATTEMPTS_PER_PROCESS);
    expect(await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')])).toEqual([0, 0]);
    // Still exactly one execution per call after everything settled.
    expect(executedEvents().map((e) => e.callId).sort()).toEqual(['big', 'small']);
  });
});
