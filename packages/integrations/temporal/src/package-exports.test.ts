import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(packageDir, '..', '..', '..');
const coreDir = join(repoDir, 'packages', 'core');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  exports: Record<string, Record<string, string>>;
  peerDependencies: Record<string, string>;
};

describe('@countersign/temporal package exports', () => {
  it('every subpath mirrors a source folder and has source, types and built conditions; Temporal is a peer', () => {
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      const folder = subpath === '.' ? '' : `${subpath.slice(2)}/`;
      expect(conditions, subpath).toEqual({
        'countersign-source': `./src/${folder}index.ts`,
        types: `./dist/${folder}index.d.ts`,
        default: `./dist/${folder}index.js`,
      });
      expect(existsSync(join(packageDir, 'src', folder, 'index.ts')), subpath).toBe(true);
    }
    expect(Object.keys(manifest.peerDependencies)).toEqual([
      '@temporalio/activity',
      '@temporalio/client',
      '@temporalio/common',
      '@temporalio/worker',
      '@temporalio/workflow',
    ]);
  });

  // Build core and this package into a throwaway node_modules under the repo's (so `@temporalio/*`
  // resolves as it would for a user) and import the package with plain node.
  const scratch = join(repoDir, 'node_modules', '.cache', `countersign-temporal-dist-${process.pid}`);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('the built package imports with plain node', () => {
    const tsc = join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
    const install = (name: string, dir: string) => {
      const installed = join(scratch, 'node_modules', '@countersign', name);
      mkdirSync(installed, { recursive: true });
      cpSync(join(dir, 'package.json'), join(installed, 'package.json'));
      return installed;
    };
    const build = (project: string, outDir: string) =>
      spawnSync(process.execPath, [tsc, '-p', project, '--outDir', outDir], { encoding: 'utf8' });
    const core = install('core', coreDir);
    const builtCore = build(join(coreDir, 'tsconfig.build.json'), join(core, 'dist'));
    expect(builtCore.stdout + builtCore.stderr, 'core').toBe('');
    // Built from a copy beside the built core, so `@countersign/core` resolves to its dist types, as for a user.
    const temporal = install('temporal', packageDir);
    cpSync(join(packageDir, 'src'), join(temporal, 'src'), { recursive: true });
    const config = JSON.parse(readFileSync(join(packageDir, 'tsconfig.build.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(temporal, 'tsconfig.build.json'), JSON.stringify({ ...config, extends: join(repoDir, 'tsconfig.base.json') }));
    const builtTemporal = build(join(temporal, 'tsconfig.build.json'), join(temporal, 'dist'));
    expect(builtTemporal.stdout + builtTemporal.stderr, 'temporal').toBe('');
    const script = `
      const m = await import('@countersign/temporal');
      const w = await import('@countersign/temporal/workflow');
      process.stdout.write([typeof m.createCountersignActivities, typeof m.countersignActivityInterceptors, typeof w.countersignWorkflow, w.decisionSignal.name].join(','));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: scratch, encoding: 'utf8' });
    expect(out).toBe('function,function,function,countersign.decision');
  }, 180_000);
});
