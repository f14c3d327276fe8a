import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfigFile, parseGatewayConfig } from './gateway-config.ts';

const MINIMAL = { upstreams: [{ name: 'memory', command: 'node', args: ['server.js'] }], policy: 'policy.yaml', principal: 'alice' };

describe('gateway configuration', () => {
  it('fills defaults and resolves paths against the config file folder', () => {
    const parsed = parseGatewayConfig(MINIMAL, '/etc/countersign');
    expect(parsed).toEqual({
      ok: true,
      config: expect.objectContaining({
        policy: '/etc/countersign/policy.yaml',
        store: { kind: 'sqlite', path: '/etc/countersign/.countersign/countersign.sqlite' },
        agent: 'mcp-gateway',
        calls: 'direct',
        approvalWaitMs: 0,
        trustOnFirstUse: false,
        relistBeforeCall: false,
      }),
    });
  });

  it('an upstream environment reads `{ env: NAME }` from the gateway’s environment and passes `passEnv` through; an unset reference is a problem', () => {
    const upstream = { name: 'gh', command: 'node', env: { LITERAL: 'x', GITHUB_TOKEN: { env: 'GH_SECRET' } }, passEnv: ['NODE_EXTRA_CA_CERTS', 'HTTPS_PROXY'] };
    const env = { GH_SECRET: 's3cret', NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem', UNRELATED: 'no' };
    const parsed = parseGatewayConfig({ ...MINIMAL, upstreams: [upstream] }, '/x', 'standalone', env);
    expect(parsed).toMatchObject({ ok: true });
    // Exactly these: the reference resolved, the set passEnv variable, nothing else of the gateway's (HTTPS_PROXY is unset).
    expect(parsed.ok && parsed.config.upstreams[0]).toEqual({ name: 'gh', command: 'node', env: { LITERAL: 'x', GITHUB_TOKEN: 's3cret', NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem' } });
    const unset = parseGatewayConfig({ ...MINIMAL, upstreams: [upstream] }, '/x', 'standalone', {});
    expect(unset).toEqual({ ok: false, problems: ['upstreams.0.env.GITHUB_TOKEN: the environment variable GH_SECRET is not set'] });
    expect(parseGatewayConfig({ ...MINIMAL, upstreams: [{ ...upstream, env: { A: { env: 'lower-case' } } }] }, '/x', 'standalone', env)).toMatchObject({ ok: false });
  });

  it('maxMessageBytes: passed on when set, refused below 1 KiB, above 1 GiB or not an integer', () => {
    expect(parseGatewayConfig({ ...MINIMAL, maxMessageBytes: 65_536 }, '/x')).toMatchObject({ ok: true, config: { maxMessageBytes: 65_536 } });
    for (const bad of [0, 1023, 2 ** 30 + 1, 1.5, '1MiB']) expect(parseGatewayConfig({ ...MINIMAL, maxMessageBytes: bad }, '/x'), String(bad)).toMatchObject({ ok: false });
  });

  it('resolves the lock path, and refuses a lock together with trust on first use', () => {
    expect(parseGatewayConfig({ ...MINIMAL, lock: 'mcp.lock.json' }, '/etc/countersign')).toMatchObject({ ok: true, config: { lock: '/etc/countersign/mcp.lock.json' } });
    const both = parseGatewayConfig({ ...MINIMAL, lock: 'mcp.lock.json', trustOnFirstUse: true }, '/etc/countersign');
    expect(both).toMatchObject({ ok: false, problems: [expect.stringMatching(/^lock: .*trustOnFirstUse/)] });
  });

  it('refuses a lock where the gateway has no store of its own to pin in (a remote approval service, or mounted on serve)', () => {
    const { policy: _policy, ...remote } = MINIMAL;
    const withService = parseGatewayConfig({ ...remote, lock: 'mcp.lock.json', approvalService: { url: 'https://a.example' } }, '/x');
    expect(withService).toMatchObject({ ok: false, problems: [expect.stringMatching(/^lock: not used with approvalService: .*countersign tools pin/)] });
    const mounted = parseGatewayConfig({ ...remote, lock: 'mcp.lock.json' }, '/x', 'mounted');
    expect(mounted).toMatchObject({ ok: false, problems: [expect.stringMatching(/^lock: not used when `countersign serve` mounts the gateway/)] });
    // relistBeforeCall is the gateway's own: kept in every mode.
    expect(parseGatewayConfig({ ...remote, relistBeforeCall: true }, '/x', 'mounted')).toMatchObject({ ok: true, config: { relistBeforeCall: true } });
  });

  it('takes a Postgres store, an HTTP upstream and recorded mode', () => {
    const parsed = parseGatewayConfig(
      {
        ...MINIMAL,
        upstreams: [{ name: 'remote', url: 'https://mcp.example/mcp', headers: { authorization: 'Bearer x' } }],
        store: { databaseUrl: 'postgres://db/countersign', pgSchema: 'cs' },
        calls: 'recorded',
        runId: 'run-1',
      },
      '/x',
    );
    expect(parsed.ok && parsed.config.store).toEqual({ kind: 'postgres', connectionString: 'postgres://db/countersign', schema: 'cs' });
    expect(parsed.ok && parsed.config.calls).toBe('recorded');
  });

  it('lists every problem: unknown keys, bad names, duplicates, a non-http url, a negative wait', () => {
    const parsed = parseGatewayConfig(
      {
        ...MINIMAL,
        upstreams: [
          { name: 'a_b', command: 'x' },
          { name: 'ok', url: 'file:///etc/passwd' },
          { name: 'memory', command: 'x' },
          { name: 'memory', command: 'y' },
        ],
        approvalWaitMs: -1,
        calls: 'sometimes',
        extra: true,
      },
      '/x',
    );
    expect(parsed.ok).toBe(false);
    const text = parsed.ok ? '' : parsed.problems.join('\n');
    for (const fragment of ['upstreams[0].name', 'upstreams[1]', 'upstreams[3].name', 'approvalWaitMs', 'calls', 'extra']) expect(text).toContain(fragment);
  });

  it('approvalService: a Countersign server instead of the embedded gate; its token only from the environment', () => {
    const { policy: _policy, ...remote } = MINIMAL;
    const parsed = parseGatewayConfig({ ...remote, approvalService: { url: 'https://approvals.example' } }, '/x');
    expect(parsed).toMatchObject({ ok: true, config: { approvalService: { url: 'https://approvals.example', tokenEnv: 'COUNTERSIGN_AGENT_TOKEN' }, approvalUrl: 'https://approvals.example' } });
    expect(parsed.ok && parsed.config.policy).toBeUndefined();
    const problems = (value: unknown) => {
      const result = parseGatewayConfig(value, '/x');
      return result.ok ? [] : result.problems;
    };
    // The token itself is never read from the file.
    expect(problems({ ...remote, approvalService: { url: 'https://a.example', token: 'secret-in-a-file' } }).join()).toMatch(/token/);
    expect(problems({ ...remote, approvalService: { url: 'https://a.example', tokenEnv: 'not an env name' } }).join()).toMatch(/environment variable/);
    expect(problems({ ...remote, approvalService: { url: 'file:///etc/passwd' } })).not.toEqual([]);
    // One approval service: the server's policy and store apply, not the file's.
    expect(problems({ ...MINIMAL, approvalService: { url: 'https://a.example' } }).join()).toMatch(/policy: not used with approvalService/);
    expect(problems({ ...remote, store: { sqlite: 'x.sqlite' }, approvalService: { url: 'https://a.example' } }).join()).toMatch(/store: not used/);
    expect(problems({ ...remote, trustOnFirstUse: true, approvalService: { url: 'https://a.example' } }).join()).toMatch(/trustOnFirstUse: not used/);
    expect(problems(remote).join()).toMatch(/policy file is required/);
  });

  it('reads YAML strictly (duplicate keys refused) and refuses an unknown extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cs-gw-config-'));
    try {
      writeFileSync(join(dir, 'gateway.yaml'), 'principal: alice\nprincipal: mallory\n');
      const dup = await loadGatewayConfigFile(join(dir, 'gateway.yaml'));
      expect(dup.ok).toBe(false);
      writeFileSync(join(dir, 'gateway.toml'), '');
      const ext = await loadGatewayConfigFile(join(dir, 'gateway.toml'));
      expect(!ext.ok && ext.problems[0]).toContain('unknown gateway configuration file extension');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
