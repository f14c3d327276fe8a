import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessServe, serveInProcess } from '../testing/serve-in-process.ts';
import { apiClient } from '../serve/testing/api-client.ts';
import { sample } from '@countersign/server/test-kit';

const AGENT = `agent-${randomBytes(12).toString('hex')}`;
const APPROVER = `approver-${randomBytes(12).toString('hex')}`;
// An argument value that must never reach the log.
const SECRET_ARGUMENT = `iban-${randomBytes(8).toString('hex')}`;

describe('operating serve on SQLite: health, readiness, metrics, logs', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-ops-'));
  let server: InProcessServe;
  const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, server.url), { headers });
  const metrics = async () => (await get('/metrics')).text();

  beforeAll(async () => {
    server = await serveInProcess(['--json'], {
      cwd,
      env: { COUNTERSIGN_AGENT_TOKEN: AGENT, COUNTERSIGN_APPROVER_TOKEN: APPROVER, COUNTERSIGN_APPROVER_PASSWORD: 'approver-password-123' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('answers /healthz and /readyz while the store is there', async () => {
    const health = await get('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('echoes a plain x-request-id and replaces one that could forge log lines', async () => {
    expect((await get('/healthz', { 'x-request-id': 'trace-42.a' })).headers.get('x-request-id')).toBe('trace-42.a');
    const forged = (await get('/healthz', { 'x-request-id': 'x" "level":"fatal' })).headers.get('x-request-id');
    expect(forged).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.stdout()).not.toContain('"level":"fatal"');
    // On the hot JSON routes (headers set when the response is built) and on errors alike.
    const proposed = await fetch(new URL('/api/v1/proposals', server.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${AGENT}`, 'content-type': 'application/json', 'x-request-id': 'trace-43' },
      body: JSON.stringify({ runId: 'run-rid', sessionId: 's', principal: 'user:ops', toolCalls: [{ id: 'c', name: 'read_file', arguments: { path: 'a' } }] }),
    });
    expect(proposed.status).toBe(200);
    expect(proposed.headers.get('x-request-id')).toBe('trace-43');
    const missing = await get('/api/v1/requests/nope', { authorization: `Bearer ${AGENT}`, 'x-request-id': 'trace-44' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toBe('trace-44');
    expect(server.stdout()).toContain('"reqId":"trace-44"');
  });

  it('/metrics follows a propose → approve → dispatch sequence', async () => {
    const agent = apiClient(server.url, AGENT);
    const proposed = (
      await agent.post('/api/v1/proposals', {
        runId: 'run-ops',
        sessionId: 'session-ops',
        principal: 'user:ops',
        toolCalls: [{ id: 'c1', name: 'transfer', arguments: { amount: 2500, to: SECRET_ARGUMENT } }],
      })
    ).body.outcomes[0];
    expect(proposed.status).toBe('approval_required');
    expect((await apiClient(server.url, APPROVER).post('/api/v1/decisions', { requestId: proposed.requestId, decision: 'approve' })).status).toBe(200);
    const token = (await agent.get(`/api/v1/requests/${proposed.requestId}/token`)).body.token as string;
    const dispatched = await agent.post('/api/v1/dispatch', { proposalId: proposed.proposalId, runId: 'run-ops', sessionId: 'session-ops', principal: 'user:ops', callId: 'c1', token });
    expect(dispatched.body).toMatchObject({ status: 'executed' });
    // A replay is refused: counted by reason code.
    await agent.post('/api/v1/dispatch', { proposalId: proposed.proposalId, runId: 'run-ops', sessionId: 'session-ops', principal: 'user:ops', callId: 'c1', token });

    // Events reach the collectors after the response; the wait histogram reads the store first.
    await expect.poll(async () => sample(await metrics(), 'countersign_approval_wait_seconds_count', 'decision="approve"'), { timeout: 10_000 }).toBe(1);
    const text = await metrics();
    expect(sample(text, 'countersign_proposals_total', 'verdict="approve"')).toBe(1);
    expect(sample(text, 'countersign_approval_requests_total')).toBe(1);
    expect(sample(text, 'countersign_decisions_total', 'decision="approve"')).toBe(1);
    expect(sample(text, 'countersign_dispatches_total')).toBe(1);
    expect(sample(text, 'countersign_rejections_total', 'stage="authorize",reason="already_consumed"')).toBe(1);
    expect(sample(text, 'countersign_store_operation_seconds_count', 'operation="consume",outcome="ok"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'countersign_store_up')).toBe(1);
    // The client library's process metrics come along.
    expect(text).toContain('process_cpu_seconds_total');
  });

  it('logs each request and event as JSON with time, level, ids and reason codes, and never a token or an argument value', async () => {
    const lines = server
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const request = lines.find((l) => l.event === 'request' && l.path === '/api/v1/dispatch');
    expect(request).toMatchObject({ level: 'info', method: 'POST', status: 200, reqId: expect.any(String) });
    expect(new Date(request!.time as string).toISOString()).toBe(request!.time);
    expect(lines).toContainEqual(expect.objectContaining({ event: 'gate.rejected', level: 'warn', stage: 'authorize', reason: 'already_consumed', toolName: 'transfer' }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'gate.decided', decision: 'approve', approver: 'approver' }));
    const everything = server.stdout() + server.stderr();
    expect(everything).not.toContain(AGENT);
    expect(everything).not.toContain(APPROVER);
    expect(everything).not.toContain(SECRET_ARGUMENT);
    expect(everything).not.toContain('approver-password-123');
  });

  it('/readyz answers 503 store_unavailable once the database file is replaced, and /metrics shows the outage', async () => {
    const db = join(cwd, '.countersign', 'countersign.sqlite');
    renameSync(db, `${db}.moved`);
    const ready = await get('/readyz');
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: 'not_ready', reason: 'store_unavailable' });
    // Latched: putting the file back does not make this process trust it again (restart to recover).
    renameSync(`${db}.moved`, db);
    expect((await get('/readyz')).status).toBe(503);
    expect((await get('/healthz')).status).toBe(200);

    const outcome = (
      await apiClient(server.url, AGENT).post('/api/v1/proposals', {
        runId: 'run-ops-2',
        sessionId: 'session-ops',
        principal: 'user:ops',
        toolCalls: [{ id: 'c9', name: 'transfer', arguments: { amount: 1, to: 'x' } }],
      })
    ).body.outcomes[0];
    // The write failed and nothing can be read back to say it did not commit: outcome_unknown (propose again).
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'outcome_unknown' });
    await expect.poll(async () => sample(await metrics(), 'countersign_rejections_total', 'stage="propose",reason="outcome_unknown"'), { timeout: 10_000 }).toBe(1);
    const text = await metrics();
    expect(sample(text, 'countersign_store_up')).toBe(0);
    expect(sample(text, 'countersign_store_operation_seconds_count', 'operation="ping",outcome="error"')).toBeGreaterThanOrEqual(1);
  });
});
