import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

// One build per package per test run, shared by every test file and every worker: a build
// lands in a cache folder named by a digest of what it was built from, so a changed source
// gets a new folder (a fresh build) and an unchanged one is reused. The first caller builds
// under a lock folder; the others wait for its `done` marker.

const LOCK_STALE_MS = 180_000;
const POLL_MS = 250;

/** A digest of a package's non-test TypeScript under `src/` and the named files beside it. */
export function sourceDigest(packageDir: string, files: readonly string[] = ['package.json', 'tsconfig.build.json']): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
        hash.update(relative(packageDir, path)).update('\0').update(readFileSync(path)).update('\0');
      }
    }
  };
  walk(join(packageDir, 'src'));
  for (const file of files) hash.update(file).update('\0').update(readFileSync(join(packageDir, file)));
  return hash.digest('hex').slice(0, 16);
}

function lockIsStale(lock: string): boolean {
  try {
    return Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * `cacheDir`, filled by `build(staging)` unless a caller of this run already did. `build`
 * writes into the empty-or-absent folder `staging`, which becomes `cacheDir` once it returns,
 * so a build that throws leaves no cache behind.
 */
export async function cachedBuild(cacheDir: string, build: (staging: string) => void | Promise<void>): Promise<string> {
  const done = join(cacheDir, 'done');
  const lock = `${cacheDir}.lock`;
  // The lock is made without `recursive` (that is what makes it a lock), so its parent must
  // exist: on a fresh clone nothing else may have made node_modules/.cache yet, and a failed
  // mkdir would read as "someone else holds the lock" forever.
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    if (existsSync(done)) return cacheDir;
    try {
      mkdirSync(lock, { recursive: false });
    } catch {
      if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true });
      await sleep(POLL_MS);
      continue;
    }
    try {
      if (existsSync(done)) return cacheDir;
      const staging = `${cacheDir}.staging-${process.pid}`;
      rmSync(staging, { recursive: true, force: true });
      try {
        await build(staging);
        rmSync(cacheDir, { recursive: true, force: true });
        renameSync(staging, cacheDir);
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
      writeFileSync(done, '');
      return cacheDir;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
