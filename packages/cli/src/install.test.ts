import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// What a user gets from npm: build the packages, `npm pack` each into a tarball, install
// the tarballs into a fresh project outside the repository, and run the README's
// in-process example there on plain `node` (no source condition, no TypeScript of ours:
// the packages resolve to their built dist/). One build and one install per test run.

const repo = join(import.meta.dirname, '..', '..', '..');
/** What the example and the server import, in dependency order. */
const PACKAGES = ['core', 'semantic', 'store-sqlite', 'store-postgres', 'client', 'server', 'mcp', 'proxy', 'cli'];
const OLD_NODE = '/usr/bin/node';

/** Node >= 22.18 from PATH (what a user runs), else this process's Node. */
function plainNode(): string {
  const found = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
  const [major = 0, minor = 0] = (found.stdout ?? '').trim().split('.').map(Number);
  return found.status === 0 && (major > 22 || (major === 22 && minor >= 18)) ? 'node' : process.execPath;
}

let work: string;
let app: string;
const node = plainNode();
// Everything npm runs uses this process's Node first on PATH, not the machine's default.
const env = { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}`, npm_config_update_notifier: 'false' };
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'countersign-pack-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const workspaces = PACKAGES.flatMap((p) => ['-w', `packages/${p}`]);
  run('npm', ['run', 'build', ...workspaces], repo);
  run('npm', ['pack', '--pack-destination', tarballs, ...workspaces], repo);
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'countersign-install-check', private: true, type: 'module' }));
  const files = readdirSync(tarballs).map((f) => join(tarballs, f));
  expect(files).toHaveLength(PACKAGES.length);
  // The registry only for third-party dependencies, from the local cache when it has them.
  run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...files], app);
}, 900_000);
afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('npm pack, install into a fresh project, run on plain node', () => {
  it("the README's in-process example runs from the installed packages", () => {
    copyFileSync(join(repo, 'examples', 'in-process', 'in-process.ts'), join(app, 'in-process.ts'));
    // Installed, not linked: the packages are copies under the project's node_modules.
    expect(existsSync(join(app, 'node_modules', '@countersign', 'core', 'dist', 'index.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', '@countersign', 'core', 'src'))).toBe(false);
    const out = run(node, ['in-process.ts'], app);
    expect(out.split('\n')).toEqual([
      'propose:        approval_required',
      'first dispatch: executed',
      'replay:         not_approved (already_consumed)',
      'transfers made: [{"amount":500,"to":"alice"}]',
      '',
    ]);
  });

  it('@countersign/server exports createApp and startServer as the README says; startServer serves', () => {
    const script = `
      import { createApp, startServer } from '@countersign/server';
      import { hmacKey, Keyring, loadPolicy, MemoryAuditLog, MemoryLedger } from '@countersign/core';
      const server = await startServer({
        ledger: new MemoryLedger(), audit: new MemoryAuditLog(), policy: loadPolicy('version: 1\\nrules: []', 'yaml'),
        keyring: new Keyring([hmacKey('k1', Buffer.alloc(32, 7))]), tools: {},
        auth: { agents: [{ name: 'a', token: 'agent-token-aaaaaaaaaaaa' }], approvers: [] }, host: '127.0.0.1', port: 0,
      });
      const res = await fetch(server.url + '/api/v1/requests/x', { headers: { authorization: 'Bearer agent-token-aaaaaaaaaaaa' } });
      await server.close();
      console.log(typeof createApp, typeof startServer, res.status);
    `;
    expect(run(node, ['--input-type=module', '-e', script], app).trim()).toBe('function function 404');
  });

  it('the installed countersign command runs; on Node < 22.18 it says which Node it needs', () => {
    const bin = join(app, 'node_modules', '.bin', 'countersign');
    expect(run(node, [bin, '--help'], app)).toContain('Usage: countersign');
    if (!existsSync(OLD_NODE)) return;
    const old = spawnSync(OLD_NODE, [bin, '--help'], { cwd: app, encoding: 'utf8' });
    const version = spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    if (Number(version.split('.')[0]) >= 23 || (version.startsWith('22.') && Number(version.split('.')[1]) >= 18)) return;
    expect(old.status).toBe(2);
    expect(old.stderr).toContain(`Countersign needs Node >= 22.18 (found ${version})`);
  });
});
