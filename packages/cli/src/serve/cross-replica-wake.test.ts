import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sseReader } from '@countersign/server/test-kit';
import { apiClient } from './testing/api-client.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/postgres.ts';
import { type ServeProcess, spawnServe } from './testing/spawn-serve.ts';

const AGENT = `agent-${randomBytes(12).toString('hex')}`;
const APPROVER = `approver-${randomBytes(12).toString('hex')}`;
// B re-reads the store at the poll (the longest serve accepts), when a long-poll runs out (the
// server's longest wait) and at an event stream's heartbeat (15 s). None of these comes within
// these tests' own timeout, so a waiter that answers in time was woken by A's NOTIFY.
const POLL_MS = 60_000;
const WAIT_SECONDS = 30;
const TEST_TIMEOUT_MS = 10_000;

describePg('a decision on replica A wakes waiters on replica B (two serve processes, one Postgres schema)', () => {
  const schema = randomSchema();
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-wake-'));
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
    [a, b] = await Promise.all([
      spawnServe(['--poll-interval-ms', String(POLL_MS)], { cwd, env }),
      spawnServe(['--poll-interval-ms', String(POLL_MS)], { cwd, env }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop('SIGKILL'), b?.stop('SIGKILL')]);
    await dropSchema(schema);
    rmSync(cwd, { recursive: true, force: true });
  });

  const propose = async (callId: string) => {
    const body = { runId: 'run-wake', sessionId: 'session-wake', principal: 'user:wake', toolCalls: [{ id: callId, name: 'transfer', arguments: { amount: 2500, to: 'erin' } }] };
    const outcome = (await apiClient(a.url, AGENT).post('/api/v1/proposals', body)).body.outcomes[0];
    expect(outcome.status).toBe('approval_required');
    return outcome.requestId as string;
  };
  const decideOnA = (requestId: string, decision: 'approve' | 'deny') =>
    new Promise((resolve) => setTimeout(() => resolve(apiClient(a.url, APPROVER).post('/api/v1/decisions', { requestId, decision })), 300));

  it('a long-poll on B returns promptly, well below the poll interval', { timeout: TEST_TIMEOUT_MS }, async () => {
    const requestId = await propose('long-poll');
    const [waited, decided] = await Promise.all([apiClient(b.url, AGENT).get(`/api/v1/requests/${requestId}?wait=${WAIT_SECONDS}`), decideOnA(requestId, 'approve')]);
    expect((decided as { status: number }).status).toBe(200);
    expect(waited.body.status).toBe('approved');
  });

  it('an event stream on B sends the decision promptly', { timeout: TEST_TIMEOUT_MS }, async () => {
    const requestId = await propose('sse');
    const response = await fetch(new URL(`/api/v1/requests/${requestId}/events`, b.url), { headers: { authorization: `Bearer ${AGENT}` } });
    const stream = sseReader(response);
    expect(JSON.parse((await stream.next())?.data ?? '{}')).toMatchObject({ status: 'pending' });
    await decideOnA(requestId, 'deny');
    // Heartbeats come and go: the frames are read until the status, for as long as the test may run.
    let frame = await stream.next(POLL_MS);
    while (frame !== undefined && frame.event === undefined) frame = await stream.next(POLL_MS);
    expect(JSON.parse(frame?.data ?? '{}')).toMatchObject({ status: 'denied' });
  });
});
