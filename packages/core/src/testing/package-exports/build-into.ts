import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';

/**
 * Runs the repo's `tsc -p project --outDir outDir --noCheck --singleThreaded` (TypeScript 7)
 * with plain node; expects it to print nothing (no errors). `--noCheck` because `npm test`
 * type-checks every source in its own step: a test build only has to emit, which it does to
 * the same JavaScript and declarations for a fraction of the compiler's work (a file tsc
 * cannot parse still fails it). One thread: the tests run beside it, and the compiler's own
 * threads cost more processor time for the same output.
 */
export function buildInto(repoDir: string, project: string, outDir: string, label: string): void {
  const tsc = join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', outDir, '--noCheck', '--singleThreaded'], { encoding: 'utf8' });
  expect(built.stdout + built.stderr, label).toBe('');
}
