import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from './serve/testing/api-client.ts';
import { type ServeProcess, spawnServe } from './serve/testing/spawn-serve.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-serve-process-'));
const AGENT = 'test-agent-token-0123456789';
const APPROVER = 'test-approver-token-0123456789';
const env = { COUNTERSIGN_AGENT_TOKEN: AGENT, COUNTERSIGN_APPROVER_TOKEN: APPROVER, COUNTERSIGN_APPROVER_PASSWORD: 'test-password-0123' };
const running: ServeProcess[] = [];
afterAll(async () => {
  for (const server of running) await server.stop('SIGKILL');
  rmSync(cwd, { recursive: true, force: true });
});

async function start(): Promise<ServeProcess> {
  const server = await spawnServe([], { cwd, env });
  running.push(server);
  return server;
}

const call = (callId: string, amount: number) => ({
  runId: 'run-proc',
  sessionId: 'session-proc',
  principal: 'user:7',
  toolCalls: [{ id: callId, name: 'transfer', arguments: { amount, to: 'dana' } }],
});
const dispatchBody = (proposed: { proposalId: string; callId: string }, token?: string) => ({
  proposalId: proposed.proposalId,
  callId: proposed.callId,
  runId: 'run-proc',
  sessionId: 'session-proc',
  principal: 'user:7',
  ...(token === undefined ? {} : { token }),
});

describe('countersign serve as a real process', () => {
  let tokenFromFirstProcess = '';
  let laterFromFirstProcess = { proposalId: '', callId: '' };

  it('serves the API on SQLite, runs an approved call once, and stops cleanly on SIGTERM', async () => {
    const server = await start();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listening = server.events().find((e) => e.event === 'listening')!;
    expect(listening).toMatchObject({ store: expect.stringContaining(join(cwd, '.countersign', 'countersign.sqlite')), policy: 'example' });
    expect(listening.master).toEqual({ kind: 'file', path: join(cwd, '.countersign', 'master.key'), created: true });
    // Credentials given through the environment are not echoed.
    expect(JSON.stringify(server.events())).not.toContain(AGENT);
    expect(statSync(join(cwd, '.countersign', 'master.key')).mode & 0o777).toBe(0o600);

    const agent = apiClient(server.url, AGENT);
    const approver = apiClient(server.url, APPROVER);

    const small = (await agent.post('/api/v1/proposals', call('small', 10))).body.outcomes[0];
    expect(small.status).toBe('allowed');
    expect((await agent.post('/api/v1/dispatch', dispatchBody(small))).body.status).toBe('executed');

    const big = (await agent.post('/api/v1/proposals', call('big', 5000))).body.outcomes[0];
    expect(big.status).toBe('approval_required');
    expect((await agent.post('/api/v1/dispatch', dispatchBody(big))).body.status).toBe('approval_required');
    const decided = await approver.post('/api/v1/decisions', { requestId: big.requestId, decision: 'approve' });
    expect(decided.status).toBe(200);
    const token = (await agent.get(`/api/v1/requests/${big.requestId}/token`)).body.token as string;
    expect((await agent.post('/api/v1/dispatch', dispatchBody(big, token))).body.status).toBe('executed');
    expect((await agent.post('/api/v1/dispatch', dispatchBody(big, token))).body).toMatchObject({
      status: 'not_approved',
      reason: 'already_consumed',
    });

    // An approval left unused for the restart test below.
    const later = (await agent.post('/api/v1/proposals', call('later', 900))).body.outcomes[0];
    await approver.post('/api/v1/decisions', { requestId: later.requestId, decision: 'approve' });
    laterFromFirstProcess = later;
    tokenFromFirstProcess = (await agent.get(`/api/v1/requests/${later.requestId}/token`)).body.token;

    expect(await server.stop('SIGTERM')).toBe(0);
    const events = server.events();
    expect(events.filter((e) => e.event === 'executed').map((e) => e.callId)).toEqual(['small', 'big']);
    expect(events.at(-1)).toMatchObject({ event: 'stopped' });

    // SIGTERM wrote a last checkpoint: nothing but that checkpoint itself is unsigned.
    const { runCaptured } = await import('./testing/capture-io.ts');
    const verified = await runCaptured(['audit', 'verify', '--json', '--key-file', join('.countersign', 'master.key')], { cwd });
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, checkpoints: { unsignedTail: 1 } });
  });

  it('after a restart the same master.key is used, so an approval issued before still runs', async () => {
    expect(tokenFromFirstProcess).not.toBe('');
    const server = await start();
    const listening = server.events().find((e) => e.event === 'listening')!;
    expect(listening.master).toMatchObject({ kind: 'file', created: false });
    const agent = apiClient(server.url, AGENT);
    const outcome = await agent.post('/api/v1/dispatch', dispatchBody(laterFromFirstProcess, tokenFromFirstProcess));
    expect(outcome.body).toMatchObject({ status: 'executed', callId: 'later' });
    expect(await server.stop('SIGINT')).toBe(0);
  });

  it('the audit chain the server wrote verifies with the CLI', async () => {
    const { runCaptured } = await import('./testing/capture-io.ts');
    const run = await runCaptured(['audit', 'verify', '--json'], { cwd });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.count).toBeGreaterThan(10);
    // master.key next to the database is found without --key-file; SIGINT wrote a last checkpoint too.
    expect(report.checkpoints).toMatchObject({ keys: expect.stringContaining('master.key'), unsignedTail: 1 });
    expect(report.checkpoints.checked).toBe(2);
  });
});
