import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from './serve/testing/api-client.ts';
import { runCaptured } from './testing/capture-io.ts';
import { serveInProcess } from './testing/serve-in-process.ts';

const root = mkdtempSync(join(tmpdir(), 'countersign-auth-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const freshDir = () => mkdtempSync(join(root, 'case-'));

const ENV = {
  BILLING_AGENT_TOKEN: 'billing-agent-token-0001',
  ALICE_PASSWORD: 'alice-password-000001',
  ALICE_API_TOKEN: 'alice-api-token-000001',
  BOB_PASSWORD: 'bob-password-00000001',
  BOB_API_TOKEN: 'bob-api-token-0000001',
  // Set to prove they are ignored when --auth is given.
  COUNTERSIGN_AGENT_TOKEN: 'local-agent-token-00001',
  COUNTERSIGN_APPROVER_TOKEN: 'local-approver-token-001',
};
/** Every secret the file or the environment holds: none may ever be printed. */
const SECRETS = Object.values(ENV);
const LITERAL_PROXY_SECRET = 'literal-proxy-secret-0001';

const AUTH_YAML = `# The team of the deploy test.
agents:
  - name: billing-agent
    token: env:BILLING_AGENT_TOKEN
approvers:
  - id: alice@example.com
    roles: [finance, release-manager]
    password: env:ALICE_PASSWORD
    token: env:ALICE_API_TOKEN
  - id: bob@example.com
    roles: [release-manager]
    password: env:BOB_PASSWORD
    token: env:BOB_API_TOKEN
trustedProxy:
  userHeader: x-forwarded-user
  rolesHeader: x-forwarded-groups
  sharedSecretHeader: x-proxy-secret
  sharedSecret: ${LITERAL_PROXY_SECRET}
`;

function withFile(name: string, text: string): string {
  const cwd = freshDir();
  writeFileSync(join(cwd, name), text);
  return cwd;
}

function expectNoSecret(...outputs: string[]): void {
  for (const output of outputs) for (const secret of [...SECRETS, LITERAL_PROXY_SECRET]) expect(output).not.toContain(secret);
}

describe('countersign auth check', () => {
  it('validates a YAML file and prints who it lets in, without secrets', async () => {
    const run = await runCaptured(['auth', 'check', 'auth.yaml'], { cwd: withFile('auth.yaml', AUTH_YAML), env: ENV });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('auth.yaml: valid, 1 agent, 2 approvers');
    expect(run.stdout).toMatch(/agent +billing-agent/);
    expect(run.stdout).toMatch(/approver +alice@example\.com \(roles finance, release-manager; password, API bearer token\)/);
    const mapped = await runCaptured(['auth', 'check', 'auth.yaml'], {
      cwd: withFile('auth.yaml', AUTH_YAML.replace('roles: [release-manager]', 'roles: [release-manager]\n    principals: [user:7, bob]')),
      env: ENV,
    });
    expect(mapped.stdout).toMatch(/approver +bob@example\.com \(roles release-manager; also principal user:7, bob; password, API bearer token\)/);
    expect(run.stdout).toMatch(/proxy +trusted identity header x-forwarded-user, roles from x-forwarded-groups, shared secret required/);
    expectNoSecret(run.stdout, run.stderr);
  });

  it('validates a JSON file; --json gives the summary', async () => {
    const doc = { agents: [{ name: 'a', token: 'env:BILLING_AGENT_TOKEN' }], approvers: [{ id: 'carol', roles: [], password: 'env:ALICE_PASSWORD' }] };
    const run = await runCaptured(['auth', 'check', 'auth.json', '--json'], { cwd: withFile('auth.json', JSON.stringify(doc)), env: ENV });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      ok: true,
      file: 'auth.json',
      agents: [{ name: 'a' }],
      approvers: [{ id: 'carol', roles: [], password: true, token: false }],
    });
    expectNoSecret(run.stdout);
  });

  it('exit 1 with every problem and its path; exit 2 for an unreadable file', async () => {
    const cwd = withFile('auth.yaml', AUTH_YAML.replace('roles: [release-manager]', 'roles: [release-manager]\n    rolse: [x]'));
    const run = await runCaptured(['auth', 'check', 'auth.yaml'], { cwd, env: { ALICE_PASSWORD: 'short' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('auth.yaml: invalid auth file, 1 problem:\n  approvers[1].rolse: unknown key');
    const unset = await runCaptured(['auth', 'check', 'auth.yaml', '--json'], { cwd: withFile('auth.yaml', AUTH_YAML), env: { ALICE_PASSWORD: 'short' } });
    expect(unset.code).toBe(1);
    expect(JSON.parse(unset.stdout).problems).toEqual(
      expect.arrayContaining([
        'agents[0].token: environment variable BILLING_AGENT_TOKEN is not set or empty',
        'approvers[0].password: must be at least 16 characters (env:ALICE_PASSWORD)',
      ]),
    );
    const missing = await runCaptured(['auth', 'check', 'nope.yaml'], { cwd: freshDir() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.yaml: ENOENT/);
    expect((await runCaptured(['auth', 'check', 'auth.txt'], { cwd: withFile('auth.txt', AUTH_YAML) })).code).toBe(2);
  });
});

describe('countersign serve --auth', () => {
  it('two approvers from the file approve a 2-of-2 deploy; it executes once; nothing secret is printed', async () => {
    const server = await serveInProcess(['--auth', 'auth.yaml'], { cwd: withFile('auth.yaml', AUTH_YAML), env: ENV });
    const out = server.stdout();
    expect(out).toMatch(/auth +.*auth\.yaml \(1 agent, 2 approvers; COUNTERSIGN_AGENT_TOKEN and COUNTERSIGN_APPROVER_\* are ignored\)/);
    expect(out).toMatch(/approver +bob@example\.com \(roles release-manager; password, API bearer token\)/);
    expect(out).not.toMatch(/cs_agent_|cs_approver_|login "approver"/);

    const agent = apiClient(server.url, ENV.BILLING_AGENT_TOKEN);
    const alice = apiClient(server.url, ENV.ALICE_API_TOKEN);
    const bob = apiClient(server.url, ENV.BOB_API_TOKEN);
    // No local identities: the environment's local tokens are not accepted.
    expect((await apiClient(server.url, ENV.COUNTERSIGN_AGENT_TOKEN).get('/api/v1/approvals')).status).toBe(401);
    expect((await apiClient(server.url, ENV.COUNTERSIGN_APPROVER_TOKEN).get('/api/v1/approvals')).status).toBe(401);

    const call = { runId: 'r1', sessionId: 's1', principal: 'user:ci', toolCalls: [{ id: 'd1', name: 'deploy', arguments: { service: 'api', version: '1.2.3' } }] };
    const proposed = (await agent.post('/api/v1/proposals', call)).body.outcomes[0];
    expect(proposed.status).toBe('approval_required');
    const requestId: string = proposed.requestId;

    expect((await alice.post('/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(200);
    // One of two: still pending, no token yet.
    expect((await agent.get(`/api/v1/requests/${requestId}`)).body.status).toBe('pending');
    expect((await alice.post('/api/v1/decisions', { requestId, decision: 'approve' })).status).not.toBe(200);
    expect((await bob.post('/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(200);
    expect((await agent.get(`/api/v1/requests/${requestId}`)).body.status).toBe('approved');

    const token = (await agent.get(`/api/v1/requests/${requestId}/token`)).body.token;
    const dispatch = { proposalId: proposed.proposalId, runId: 'r1', callId: 'd1', sessionId: 's1', principal: 'user:ci', token };
    expect((await agent.post('/api/v1/dispatch', dispatch)).body).toMatchObject({ status: 'executed' });
    expect((await agent.post('/api/v1/dispatch', dispatch)).body).toMatchObject({ status: 'not_approved', reason: 'already_consumed' });

    // Bob signs in with the password from the file.
    const login = await fetch(new URL('/login', server.url), {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
      body: new URLSearchParams({ username: 'bob@example.com', password: ENV.BOB_PASSWORD }).toString(),
    });
    expect(login.status).toBe(303);

    expect(await server.stop()).toBe(0);
    expect(server.stdout().match(/^executed +deploy /gm)).toHaveLength(1);
    expectNoSecret(server.stdout(), server.stderr());
  });

  it('--json: the listening event lists agents and approvers without secrets', async () => {
    const doc = { agents: [{ name: 'billing-agent', token: 'env:BILLING_AGENT_TOKEN' }], approvers: [{ id: 'alice', roles: ['finance'], token: 'env:ALICE_API_TOKEN' }] };
    const server = await serveInProcess(['--auth', 'auth.json', '--json'], { cwd: withFile('auth.json', JSON.stringify(doc)), env: ENV });
    const lines = server.stdout().trim().split('\n').map((line) => JSON.parse(line));
    // Nobody in this file holds role admin: serve warns that agents' tools cannot be reviewed.
    expect(lines[0]).toMatchObject({ event: 'warning', message: expect.stringContaining('nobody can review tool definitions') });
    const listening = lines.find((line) => line.event === 'listening');
    expect(listening).toMatchObject({
      event: 'listening',
      auth: { agents: [{ name: 'billing-agent' }], approvers: [{ id: 'alice', roles: ['finance'], password: false, token: true }] },
    });
    expect(listening.auth.file).toMatch(/auth\.json$/);
    expect(listening).not.toHaveProperty('agent');
    expect(listening).not.toHaveProperty('approver');
    expect(await server.stop()).toBe(0);
    expectNoSecret(server.stdout(), server.stderr());
  });

  const refusals: Array<[what: string, text: string, message: RegExp]> = [
    ['a missing env var', AUTH_YAML.replace('env:BOB_PASSWORD', 'env:NOT_SET'), /approvers\[1\]\.password: environment variable NOT_SET is not set or empty/],
    ['a short secret', AUTH_YAML.replace(LITERAL_PROXY_SECRET, 'too-short'), /trustedProxy\.sharedSecret: must be at least 16 characters/],
    ['an unknown key', AUTH_YAML.replace('  userHeader:', '  userHeadr: x\n  userHeader:'), /trustedProxy\.userHeadr: unknown key/],
    ['a duplicate approver id', AUTH_YAML.replace('id: bob@example.com', 'id: alice@example.com'), /approvers\[1\]\.id: duplicate approver id "alice@example\.com" \(also approvers\[0\]\.id\)/],
    ['no agents', AUTH_YAML.replace(/agents:\n(.*\n){2}/, 'agents: []\n'), /agents: at least one agent is required/],
  ];
  for (const [what, text, message] of refusals) {
    it(`refuses to start (exit 2) with ${what}, naming the path`, async () => {
      const run = await runCaptured(['serve', '--port', '0', '--auth', 'auth.yaml', '--json'], { cwd: withFile('auth.yaml', text), env: ENV });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/countersign: --auth auth\.yaml: invalid auth file:/);
      expect(run.stderr).toMatch(message);
      expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toMatchObject({ ok: false, error: { code: 'config' } });
      expectNoSecret(run.stdout, run.stderr);
    });
  }

  it('refuses to start (exit 2, io) when the file cannot be read', async () => {
    const run = await runCaptured(['serve', '--port', '0', '--auth', 'missing.yaml', '--json'], { cwd: freshDir(), env: ENV });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing\.yaml: ENOENT/);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toMatchObject({ ok: false, error: { code: 'io' } });
  });

  it('says in --help that the local credential variables are ignored with --auth', async () => {
    const run = await runCaptured(['serve', '--help'], { cwd: freshDir() });
    expect(run.stdout).toContain('--auth <file>');
    expect(run.stdout).toMatch(/COUNTERSIGN_AGENT_TOKEN \/ COUNTERSIGN_APPROVER_\* are ignored/);
  });
});
