import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { builtCoreDist } from '@countersign/core/testing/package-exports';
import { buildPackages, isStale } from '../../../../scripts/build/build-packages.ts';
import { readWorkspace } from '../../../../scripts/build/workspace-graph.ts';

// The install test needs every public package's dist/, built as `npm run build` builds it
// (scripts/build.ts: each package once its dependencies are built, independent ones in
// parallel, an up-to-date dist/ reused). Core is the one the package-exports tests build too:
// it comes from their shared cache (built-core.ts, keyed by core's sources), so tsc runs on
// core once per run, whichever file arrives first.

/** Builds the stale public packages into their dist/; returns the names it built. */
export async function buildPublicPackages(repo: string): Promise<string[]> {
  const workspace = readWorkspace(repo);
  const core = workspace.find((pkg) => pkg.name === '@countersign/core')!;
  const built: string[] = [];
  if (isStale(repo, core, [])) {
    const dist = join(repo, core.folder, 'dist');
    rmSync(dist, { recursive: true, force: true });
    cpSync(await builtCoreDist(repo), dist, { recursive: true });
    built.push(core.name);
  }
  const rest = await buildPackages(repo, workspace);
  return [...built, ...rest.built];
}
