import { execFile } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertAcyclic, type WorkspacePackage } from './workspace-graph.ts';

// Builds workspace packages into their dist/ with the repository's tsc (TypeScript 7): each
// package as soon as the packages it needs are built, up to `jobs` at once. A package whose
// dist/ is newer than its inputs (the compiler's install among them) and than the dist/ of
// everything it needs is left as it is, so a second `npm run build` (or the install test
// after it) costs only the mtime checks.

const execFileAsync = promisify(execFile);

export interface BuildOptions {
  /** Builds running at once (default: the machine's processors). */
  jobs?: number;
  /** Rebuild even what is up to date. */
  force?: boolean;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** The TypeScript compiler's bin/tsc, a TypeScript 7 (default: the repository's). */
  tsc?: string;
  /**
   * Type-check while building (default: true). The tests' builds pass false (`--noCheck`):
   * `npm test` type-checks every source in its own step, and tsc emits the same output.
   */
  check?: boolean;
}

export interface BuildResult {
  built: string[];
  upToDate: string[];
}

/** A test file: every tsconfig.build.json leaves these out, so a changed test needs no build. */
const isTestFile = (name: string) => name.endsWith('.test.ts') || name.endsWith('.test-helper.ts');

/** The newest modification time of a file under `path` (a file or a folder; 0 when absent), tests aside. */
function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && !isTestFile(entry.name)) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** When dist/ was last written: the newest file in it (0 when there is none). */
const distTime = (repo: string, pkg: WorkspacePackage) => newestMtime(join(repo, pkg.folder, 'dist'));

/**
 * The newest of what a package's build reads: its sources, manifest and tsconfigs, and the
 * compiler's manifest, which npm writes when it installs another compiler (a dist/ emitted by
 * the one before is stale).
 */
function inputsTime(repo: string, pkg: WorkspacePackage): number {
  const dir = join(repo, pkg.folder);
  const compiler = join(repo, 'node_modules', 'typescript', 'package.json');
  return Math.max(...[join(dir, 'src'), join(dir, 'package.json'), join(dir, 'tsconfig.build.json'), join(repo, 'tsconfig.base.json'), compiler].map(newestMtime));
}

/** Needs a build: no dist/, or one older than the package's inputs or than the dist/ of a package it needs. */
export function isStale(repo: string, pkg: WorkspacePackage, needs: readonly WorkspacePackage[]): boolean {
  const dist = distTime(repo, pkg);
  return dist === 0 || inputsTime(repo, pkg) >= dist || needs.some((need) => distTime(repo, need) >= dist);
}

export async function buildPackages(repo: string, packages: readonly WorkspacePackage[], options: BuildOptions = {}): Promise<BuildResult> {
  assertAcyclic(packages);
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  const log = options.log ?? (() => {});
  const tsc = options.tsc ?? join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
  const inRun = new Set(packages.map((pkg) => pkg.name));
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const result: BuildResult = { built: [], upToDate: [] };
  const finished = new Map<string, Promise<void>>();
  let running = 0;
  const waiting: Array<() => void> = [];
  const slot = async () => {
    if (running >= jobs) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
  };
  const release = () => {
    running -= 1;
    waiting.shift()?.();
  };

  const build = (pkg: WorkspacePackage): Promise<void> => {
    const known = finished.get(pkg.name);
    if (known !== undefined) return known;
    const done = (async () => {
      const needs = pkg.needs.filter((name) => inRun.has(name)).map((name) => byName.get(name)!);
      await Promise.all(needs.map(build));
      if (options.force !== true && !isStale(repo, pkg, needs)) {
        result.upToDate.push(pkg.name);
        return;
      }
      await slot();
      const started = performance.now();
      try {
        // A source removed since the last build must not live on in dist/.
        rmSync(join(repo, pkg.folder, 'dist'), { recursive: true, force: true });
        const noCheck = options.check === false ? ['--noCheck'] : [];
        // One thread per build: the builds run side by side already (`jobs`), and a compiler's
        // own threads would each redo part of its work.
        await execFileAsync(process.execPath, [tsc, '-p', join(repo, pkg.folder, 'tsconfig.build.json'), '--singleThreaded', ...noCheck], {
          cwd: repo,
          maxBuffer: 64 * 1024 * 1024,
        });
      } catch (error) {
        const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
        throw new Error(`build of ${pkg.name} failed:\n${stdout}${stderr}`);
      } finally {
        release();
      }
      result.built.push(pkg.name);
      log(`built ${pkg.name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    })();
    finished.set(pkg.name, done);
    return done;
  };

  await Promise.all(packages.map(build));
  return result;
}
