import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installFolder } from './install-lockfile.ts';

const work = mkdtempSync(join(tmpdir(), 'cs-install-lockfile-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A packed package with this package.json, as `npm pack` writes it. */
function tarball(manifest: Record<string, unknown>): string {
  const source = join(work, `${String(manifest.name).replace('@', '').replace('/', '-')}-source`);
  mkdirSync(join(source, 'package'), { recursive: true });
  writeFileSync(join(source, 'package', 'package.json'), JSON.stringify(manifest));
  const file = join(work, `${String(manifest.name).replace('@', '').replace('/', '-')}.tgz`);
  execFileSync('tar', ['-czf', file, '-C', source, 'package']);
  return file;
}

/** A repository lockfile: `lib` needs `nested` at its own version, `framework` wants `peer` beside it. */
const REPO_LOCK = {
  '': { name: 'repo' },
  'node_modules/@countersign/core': { resolved: 'packages/core', link: true },
  'node_modules/lib': { version: '1.0.0', dev: true, dependencies: { nested: '^2.0.0' }, optionalDependencies: { 'lib-linux': '1.0.0', 'lib-darwin': '1.0.0' } },
  'node_modules/lib/node_modules/nested': { version: '2.0.0', dev: true },
  'node_modules/lib-linux': { version: '1.0.0', dev: true, optional: true, os: ['linux'] },
  'node_modules/nested': { version: '1.0.0' },
  'node_modules/framework': { version: '3.0.0', dev: true, peerDependencies: { peer: '^1.0.0', maybe: '*' }, peerDependenciesMeta: { maybe: { optional: true } } },
  'node_modules/peer': { version: '1.0.0', dev: true },
  'node_modules/maybe': { version: '1.0.0', dev: true },
  'node_modules/unrelated': { version: '1.0.0' },
};

describe("an install folder's lockfile, cut from the repository's", () => {
  it('holds what the tarball and the framework declare, at their places in the tree, and nothing else', () => {
    const core = tarball({ name: '@countersign/core', version: '0.1.0', dependencies: { lib: '^1.0.0' } });
    const dir = join(work, 'folder');
    const { packageJson, lockfile } = installFolder('folder', dir, [core], ['framework'], REPO_LOCK);
    expect(packageJson.dependencies).toEqual({ '@countersign/core': 'file:../countersign-core.tgz', framework: '3.0.0' });
    expect(Object.keys(lockfile.packages).sort()).toEqual(
      ['', 'node_modules/@countersign/core', 'node_modules/framework', 'node_modules/lib', 'node_modules/lib-linux', 'node_modules/lib/node_modules/nested', 'node_modules/peer'].sort(),
    );
    expect(lockfile.packages['node_modules/@countersign/core']).toMatchObject({ version: '0.1.0', resolved: 'file:../countersign-core.tgz', dependencies: { lib: '^1.0.0' } });
    // The repository's dev flags are not this folder's; a build the repository's lockfile lacks is not asked for.
    expect(lockfile.packages['node_modules/lib']).toEqual({ version: '1.0.0', dependencies: { nested: '^2.0.0' }, optionalDependencies: { 'lib-linux': '1.0.0' } });
  });

  it('refuses a dependency the repository never installed, naming who declares it', () => {
    const core = tarball({ name: '@countersign/core', version: '0.1.0', dependencies: { 'left-pad': '^1.0.0' } });
    expect(() => installFolder('folder', join(work, 'folder'), [core], [], REPO_LOCK)).toThrow('left-pad, which node_modules/@countersign/core declares, is not in package-lock.json');
  });

  it('takes a package of ours only from the tarballs given, never from the workspace link', () => {
    const semantic = tarball({ name: '@countersign/semantic', version: '0.1.0', dependencies: { '@countersign/core': '0.1.0' } });
    expect(() => installFolder('folder', join(work, 'folder'), [semantic], [], REPO_LOCK)).toThrow('@countersign/core, which node_modules/@countersign/semantic declares');
  });
});
