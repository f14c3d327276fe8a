import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(packageDir, '..', '..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  exports: Record<string, Record<string, string>>;
};

describe('package exports', () => {
  it('every subpath mirrors a source folder and has source, types and built conditions', () => {
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      const folder = subpath === '.' ? '' : `${subpath.slice(2)}/`;
      expect(conditions, subpath).toEqual({
        'countersign-source': `./src/${folder}index.ts`,
        types: `./dist/${folder}index.d.ts`,
        default: `./dist/${folder}index.js`,
      });
      expect(existsSync(join(packageDir, 'src', folder, 'index.ts')), subpath).toBe(true);
    }
  });

  // Build into a throwaway copy of the package under the repo's node_modules (so its
  // dependencies resolve as they would for a user) and import every subpath with plain
  // node: no source condition, no TypeScript.
  const scratch = join(repoDir, 'node_modules', '.cache', `countersign-dist-${process.pid}`);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('the built package imports with plain node, ./testing included', () => {
    const installed = join(scratch, 'node_modules', '@countersign', 'core');
    mkdirSync(installed, { recursive: true });
    cpSync(join(packageDir, 'package.json'), join(installed, 'package.json'));
    const tsc = join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
    const build = spawnSync(process.execPath, [tsc, '-p', join(packageDir, 'tsconfig.build.json'), '--outDir', join(installed, 'dist')], {
      encoding: 'utf8',
    });
    expect(build.stdout + build.stderr).toBe('');
    const subpaths = Object.keys(manifest.exports).map((s) => (s === '.' ? '@countersign/core' : `@countersign/core/${s.slice(2)}`));
    const script = `
      for (const s of ${JSON.stringify(subpaths)}) await import(s);
      const { makeGateFixture } = await import('@countersign/core/testing');
      const { Gate } = await import('@countersign/core');
      const f = makeGateFixture();
      process.stdout.write(String(f.gate instanceof Gate));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: scratch, encoding: 'utf8' });
    expect(out).toBe('true');
  }, 120_000);
});
