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

  it('resolves the lock path, and refuses a lock together with trust on first use', () => {
    expect(parseGatewayConfig({ ...MINIMAL, lock: 'mcp.lock.json' }, '/etc/countersign')).toMatchObject({ ok: true, config: { lock: '/etc/countersign/mcp.lock.json' } });
    const both = parseGatewayConfig({ ...MINIMAL, lock: 'mcp.lock.json', trustOnFirstUse: true }, '/etc/countersign');
    expect(both).toMatchObject({ ok: false, problems: [expect.stringMatching(/^lock: .*trustOnFirstUse/)] });
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
