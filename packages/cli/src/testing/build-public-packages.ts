import { execFile } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { builtCoreDist } from '@countersign/core/testing/package-exports';

// The install test needs every public package's dist/. Core is the one the package-exports
// tests build too: it comes from their shared cache (built-core.ts, keyed by core's sources),
// so whichever file of the run arrives first builds it and the other copies it — tsc runs on
// core once per run. The others build in dependency waves, each wave's packages in parallel.

const execFileAsync = promisify(execFile);

/** The public packages other than core, in waves: a package depends only on earlier waves. */
const WAVES_AFTER_CORE = [['semantic', 'store-sqlite', 'store-postgres', 'client'], ['server', 'mcp', 'proxy'], ['cli']];

/** The latest modification time of a file under `dir` (0 when there is none). */
function newestMtime(dir: string): number {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** A package whose dist/ is newer than all its sources is reused, not rebuilt. */
function isStale(repo: string, name: string): boolean {
  const dir = join(repo, 'packages', name);
  return newestMtime(join(dir, 'src')) >= newestMtime(join(dir, 'dist'));
}

/** Builds the stale public packages into their dist/ (as `npm run build` would); returns the names it built. */
export async function buildPublicPackages(repo: string): Promise<string[]> {
  const built: string[] = [];
  if (isStale(repo, 'core')) {
    const dist = join(repo, 'packages', 'core', 'dist');
    rmSync(dist, { recursive: true, force: true });
    cpSync(await builtCoreDist(repo), dist, { recursive: true });
    built.push('core');
  }
  const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  for (const wave of WAVES_AFTER_CORE) {
    const stale = wave.filter((name) => isStale(repo, name));
    await Promise.all(stale.map((name) => execFileAsync(process.execPath, [tsc, '-p', join(repo, 'packages', name, 'tsconfig.build.json')], { timeout: 600_000 })));
    built.push(...stale);
  }
  return built;
}
