import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from './serve/testing/api-client.ts';
import { verifyWebhookSignature } from '@countersign/server';
import { runCaptured } from './testing/capture-io.ts';
import { serveInProcess } from './testing/serve-in-process.ts';
import { withCredentials } from './testing/local-credentials.ts';

const root = mkdtempSync(join(tmpdir(), 'countersign-serve-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const freshDir = () => mkdtempSync(join(root, 'case-'));

describe('countersign serve (in-process)', () => {
  it('prints derived credentials that work, and the same ones after a restart', async () => {
    const cwd = freshDir();
    const first = await serveInProcess([], { cwd });
    const out = first.stdout();
    expect(out).toContain('using the example policy');
    expect(out).toMatch(/generated a master secret and saved it to .*master\.key \(mode 0600\)/);
    const agentToken = /bearer token (cs_agent_\S+)/.exec(out)![1]!;
    const approverToken = /API bearer token (cs_approver_\S+)/.exec(out)![1]!;
    const password = /password (\S+)/.exec(out)![1]!;
    expect(password.length).toBeGreaterThanOrEqual(20);

    expect((await apiClient(first.url, approverToken).get('/api/v1/approvals')).status).toBe(200);
    expect((await apiClient(first.url, agentToken).get('/api/v1/approvals')).status).toBe(403);
    expect((await apiClient(first.url, 'wrong-token-000000000').get('/api/v1/approvals')).status).toBe(401);
    const login = await fetch(new URL('/login', first.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: first.url },
      body: new URLSearchParams({ username: 'approver', password }).toString(),
    });
    expect(login.status).toBe(303);
    expect(login.headers.get('set-cookie')).toBeTruthy();

    expect(await first.stop()).toBe(0);
    expect(first.stdout()).toMatch(/shutting down\nstopped\n$/);

    const second = await serveInProcess([], { cwd });
    expect(second.stdout()).toContain(`bearer token ${agentToken}`);
    expect(second.stdout()).toMatch(/keys +master secret from .*master\.key/);
    expect(await second.stop()).toBe(0);
  });

  it('takes the master secret and credentials from the environment without echoing them', async () => {
    const cwd = freshDir();
    const env = {
      COUNTERSIGN_MASTER_SECRET: 'cd'.repeat(32),
      COUNTERSIGN_AGENT_TOKEN: 'env-agent-token-0000000001',
      COUNTERSIGN_APPROVER_TOKEN: 'env-approver-token-00000001',
    };
    const server = await serveInProcess(['--db', 'data/db.sqlite'], { cwd, env });
    const out = server.stdout();
    expect(out).toContain('master secret from COUNTERSIGN_MASTER_SECRET');
    expect(out).toContain('bearer token from COUNTERSIGN_AGENT_TOKEN');
    for (const value of Object.values(env)) expect(out).not.toContain(value);
    expect(out).toContain(join(cwd, 'data', 'db.sqlite'));
    const proposed = await apiClient(server.url, env.COUNTERSIGN_AGENT_TOKEN).post('/api/v1/proposals', {
      runId: 'r',
      sessionId: 's',
      principal: 'p',
      toolCalls: [{ id: 'c', name: 'delete_repo', arguments: { repo: 'prod' } }],
    });
    expect(proposed.body.outcomes[0]).toMatchObject({ status: 'denied', reason: 'policy_deny' });
    expect(await server.stop()).toBe(0);
    // No key file when the secret comes from the environment.
    expect(existsSync(join(cwd, 'data', 'master.key'))).toBe(false);
    expect(existsSync(join(cwd, 'data', 'db.sqlite'))).toBe(true);
  });

  it('uses --policy: a policy that denies transfers denies them', async () => {
    const cwd = freshDir();
    writeFileSync(join(cwd, 'strict.yaml'), 'version: 1\nrules:\n  - id: no-transfers\n    tool: transfer\n    verdict: deny\n');
    const server = await serveInProcess(['--policy', 'strict.yaml', '--json'], { cwd });
    const listening = withCredentials(JSON.parse(server.stdout().split('\n')[0]!));
    expect(listening).toMatchObject({ event: 'listening', policy: join(cwd, 'strict.yaml'), rules: ['no-transfers'] });
    const agent = apiClient(server.url, listening.agent.token);
    const proposed = await agent.post('/api/v1/proposals', {
      runId: 'r',
      sessionId: 's',
      principal: 'p',
      toolCalls: [{ id: 'c', name: 'transfer', arguments: { amount: 1, to: 'x' } }],
    });
    expect(proposed.body.outcomes[0]).toMatchObject({ status: 'denied', reason: 'policy_deny' });
    expect(await server.stop()).toBe(0);
  });

  it('--webhook-url: request events are POSTed, signed with COUNTERSIGN_WEBHOOK_SECRET', async () => {
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const secret = 'webhook-secret-0123456789';
    const server = await serveInProcess(['--webhook-url', hook, '--json'], { cwd: freshDir(), env: { COUNTERSIGN_WEBHOOK_SECRET: secret } });
    const lines = server.stdout().trim().split('\n').map((line) => JSON.parse(line));
    // No --public-url: links use the listen address, and serve says so.
    expect(lines[0]).toMatchObject({ level: 'warn', event: 'warning', message: expect.stringContaining('--webhook-url without --public-url') });
    const listening = withCredentials(lines.find((line) => line.event === 'listening'));
    await apiClient(server.url, listening.agent.token).post('/api/v1/proposals', {
      runId: 'r',
      sessionId: 's',
      principal: 'p',
      toolCalls: [{ id: 'c', name: 'transfer', arguments: { amount: 5000, to: 'x' } }],
    });
    await expect.poll(() => received.length).toBeGreaterThan(0);
    await server.stop();
    receiver.close();
    const [delivery] = received;
    const timestamp = String(delivery!.headers['countersign-timestamp']);
    expect(verifyWebhookSignature(secret, timestamp, delivery!.body, String(delivery!.headers['countersign-signature']), Date.now())).toEqual({ ok: true });
    expect(JSON.parse(delivery!.body).request.url).toMatch(new RegExp(`^${server.url}/requests/[^/]+$`));
  });

  it('warns when master.key is readable by others', async () => {
    const cwd = freshDir();
    const first = await serveInProcess([], { cwd });
    await first.stop();
    chmodSync(join(cwd, '.countersign', 'master.key'), 0o644);
    const second = await serveInProcess([], { cwd });
    expect(second.stderr()).toMatch(/warning: .*master\.key is accessible to other users/);
    await second.stop();
  });
});

describe('countersign serve refuses to start (exit 2, reason on stderr)', () => {
  it('with an invalid policy, listing every problem', async () => {
    const cwd = freshDir();
    writeFileSync(join(cwd, 'bad.yaml'), 'version: 2\nrules:\n  - tool: x\n    verdict: sometimes\n');
    const run = await runCaptured(['serve', '--port', '0', '--policy', 'bad.yaml'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/version/);
    expect(run.stderr).toMatch(/rules\[0\]\.verdict/);
  });

  it('with Postgres but no COUNTERSIGN_MASTER_SECRET', async () => {
    const run = await runCaptured(['serve', '--port', '0', '--database-url', 'postgres://nobody@127.0.0.1:1/none'], { cwd: freshDir() });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/COUNTERSIGN_MASTER_SECRET is required with Postgres/);
  });

  it('with a weak master secret or a short token', async () => {
    const weak = await runCaptured(['serve', '--port', '0'], { cwd: freshDir(), env: { COUNTERSIGN_MASTER_SECRET: 'abcd' } });
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/COUNTERSIGN_MASTER_SECRET/);
    const short = await runCaptured(['serve', '--port', '0'], { cwd: freshDir(), env: { COUNTERSIGN_AGENT_TOKEN: 'short' } });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/COUNTERSIGN_AGENT_TOKEN must be at least 16 characters/);
  });

  it('with bad flags', async () => {
    const cwd = freshDir();
    const noSecret = await runCaptured(['serve', '--webhook-url', 'http://127.0.0.1:9/hook'], { cwd });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toMatch(/COUNTERSIGN_WEBHOOK_SECRET/);
    expect((await runCaptured(['serve', '--port', '70000'], { cwd })).code).toBe(2);
    expect((await runCaptured(['serve', '--db', 'a.sqlite', '--database-url', 'postgres://x@y/z'], { cwd })).code).toBe(2);
    expect((await runCaptured(['serve', '--database-url', 'mysql://x@y/z'], { cwd })).code).toBe(2);
    expect((await runCaptured(['serve', '--public-url', 'ftp://x'], { cwd })).code).toBe(2);
  });

  it('when the port is taken, and the store is closed again', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const cwd = freshDir();
    const run = await runCaptured(['serve', '--port', String(port), '--json'], { cwd });
    blocker.close();
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`port ${port} is already in use`));
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toMatchObject({ ok: false, error: { code: 'io' } });
    // A start that never listened leaves nothing behind: no master.key, credentials.env or database.
    expect(existsSync(join(cwd, '.countersign')) ? readdirSync(join(cwd, '.countersign')) : []).toEqual([]);
  });
});

describe('countersign serve: a request that stalls', () => {
  it('headers sent, body never finished: answered 408 and the connection closed after --request-timeout-ms, not held for minutes', async () => {
    const served = await serveInProcess(['--request-timeout-ms', '400'], { cwd: freshDir() });
    try {
      const { hostname, port } = new URL(served.url);
      const agentToken = /bearer token (cs_agent_\S+)/.exec(served.stdout())![1]!;
      const socket = (await import('node:net')).connect(Number(port), hostname);
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
      const started = Date.now();
      socket.write(`POST /api/v1/proposals HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${agentToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"runId":`);
      const at = await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(at - started).toBeLessThan(5000);
    } finally {
      await served.stop();
    }
  }, 20_000);
});
