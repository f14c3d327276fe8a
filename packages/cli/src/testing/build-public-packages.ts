import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { builtPackageCache } from '@countersign/core/testing/package-exports';
import { buildPackages, isStale } from '../../../../scripts/build/build-packages.ts';
import { readWorkspace, selectWithNeeds, type WorkspacePackage } from '../../../../scripts/build/workspace-graph.ts';

// The install test needs every public package's dist/, built as `npm run build` builds it
// (scripts/build.ts: each package once its dependencies are built, independent ones in
// parallel, an up-to-date dist/ reused). The framework integrations and what they need (core,
// semantic, proxy) are the packages the package-exports tests build too: they come from the
// shared cache (core's testing/package-exports/built-package.ts, keyed by their sources), so
// tsc runs on each of them once per run, whichever test file arrives first.

/** Builds the stale public packages into their dist/; returns the names it built or copied from the shared cache. */
export async function buildPublicPackages(repo: string): Promise<string[]> {
  const workspace = readWorkspace(repo);
  const integrations = workspace.filter((pkg) => pkg.folder.startsWith('packages/integrations/')).map((pkg) => pkg.name);
  const shared = selectWithNeeds(workspace, integrations);
  const byName = new Map(workspace.map((pkg) => [pkg.name, pkg]));
  const built: string[] = [];
  const visited = new Set<string>();
  // Each after what it needs: a dist/ copied before a need's would look stale beside it.
  const fromCache = async (pkg: WorkspacePackage): Promise<void> => {
    if (visited.has(pkg.name)) return;
    visited.add(pkg.name);
    const needs = pkg.needs.map((name) => byName.get(name)!);
    for (const need of needs) await fromCache(need);
    if (!isStale(repo, pkg, needs)) return;
    const dist = join(repo, pkg.folder, 'dist');
    rmSync(dist, { recursive: true, force: true });
    cpSync(join(await builtPackageCache(repo, pkg.name), 'dist'), dist, { recursive: true });
    built.push(pkg.name);
  };
  for (const pkg of shared) await fromCache(pkg);
  // Emit only (`--noCheck`), as the shared builds do: npm test type-checks in its own step.
  const rest = await buildPackages(repo, workspace, { check: false });
  return [...built, ...rest.built];
}
