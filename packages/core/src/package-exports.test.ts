import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { copyBuiltCore } from './testing/package-exports/built-core.ts';
import { expectExportsMirrorSources, installManifest, readManifest } from './testing/package-exports/package-exports.ts';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(packageDir, '..', '..');
const manifest = readManifest(packageDir);

describe('package exports', () => {
  it('every subpath mirrors a source folder and has source, types and built conditions', () => {
    expectExportsMirrorSources(packageDir, manifest);
  });

  // Build into a throwaway copy of the package under the repo's node_modules (so its
  // dependencies resolve as they would for a user) and import every subpath with plain
  // node: no source condition, no TypeScript.
  const scratch = join(repoDir, 'node_modules', '.cache', `countersign-dist-${process.pid}`);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('the built package imports with plain node, ./testing included', async () => {
    const installed = installManifest(scratch, 'core', packageDir);
    await copyBuiltCore(repoDir, installed);
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
