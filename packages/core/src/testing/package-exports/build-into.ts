import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';

/** Runs the repo's `tsc -p project --outDir outDir` with plain node; expects it to print nothing (no errors). */
export function buildInto(repoDir: string, project: string, outDir: string, label: string): void {
  const tsc = join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', outDir], { encoding: 'utf8' });
  expect(built.stdout + built.stderr, label).toBe('');
}
