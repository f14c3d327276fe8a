import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildInto } from './build-into.ts';

// Six package-exports test files need `@countersign/core` built with plain tsc. Building it
// once per run, not once per file, is most of their time: the build lands in a cache folder
// named by a digest of core's sources, so a changed source builds afresh and an unchanged one
// is reused by every file (and every worker) of the run. The first file to arrive builds under
// a lock folder; the others wait for its `done` marker.

const LOCK_STALE_MS = 180_000;
const POLL_MS = 250;

function sourceDigest(coreDir: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        hash.update(relative(coreDir, path)).update('\0').update(readFileSync(path)).update('\0');
      }
    }
  };
  walk(join(coreDir, 'src'));
  for (const file of ['package.json', 'tsconfig.build.json']) hash.update(file).update('\0').update(readFileSync(join(coreDir, file)));
  return hash.digest('hex').slice(0, 16);
}

function lockIsStale(lock: string): boolean {
  try {
    return Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/** The folder holding core's `dist/` built from today's sources, building it if no file of this run has. */
export async function builtCoreDist(repoDir: string): Promise<string> {
  const coreDir = join(repoDir, 'packages', 'core');
  const cacheDir = join(repoDir, 'node_modules', '.cache', `countersign-core-build-${sourceDigest(coreDir)}`);
  const done = join(cacheDir, 'done');
  const lock = `${cacheDir}.lock`;
  // The lock is made without `recursive` (that is what makes it a lock), so its parent must
  // exist: on a fresh clone nothing else may have made node_modules/.cache yet, and a failed
  // mkdir would read as "someone else holds the lock" forever.
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    if (existsSync(done)) return join(cacheDir, 'dist');
    try {
      mkdirSync(lock, { recursive: false });
    } catch {
      if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
      await sleep(POLL_MS);
      continue;
    }
    try {
      if (existsSync(done)) return join(cacheDir, 'dist');
      const staging = `${cacheDir}.staging-${process.pid}`;
      rmSync(staging, { recursive: true, force: true });
      buildInto(repoDir, join(coreDir, 'tsconfig.build.json'), join(staging, 'dist'), 'core');
      rmSync(cacheDir, { recursive: true, force: true });
      renameSync(staging, cacheDir);
      writeFileSync(done, '');
      return join(cacheDir, 'dist');
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

/** Copies the cached core build into `installed/dist`. */
export async function copyBuiltCore(repoDir: string, installed: string): Promise<void> {
  cpSync(await builtCoreDist(repoDir), join(installed, 'dist'), { recursive: true });
}
