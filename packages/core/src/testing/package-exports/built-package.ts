import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedBuild, sourceDigest } from './build-cache.ts';
import { buildInto } from './build-into.ts';

// Each workspace package built with plain tsc once per test run, shared by the package-exports
// tests and the install test (build-cache.ts holds the lock). A package's cache folder is named
// by the compiler's version, its own sources and the names of the builds it was compiled
// against, so a changed source rebuilds that package and everything that needs it, and nothing
// else.

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readManifestAt = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** A workspace package: its folder (relative to the repository) and the workspace folders its build needs. */
export interface WorkspaceFolder {
  name: string;
  folder: string;
  needs: string[];
}

/** The repository's workspace packages by name, each with the workspace packages its build imports. */
export function workspaceFolders(repoDir: string): Map<string, WorkspaceFolder> {
  const folders = (JSON.parse(readFileSync(join(repoDir, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces;
  const manifests = folders.map((folder) => ({ folder, manifest: readManifestAt(join(repoDir, folder)) }));
  const names = new Set(manifests.map(({ manifest }) => manifest.name));
  return new Map(
    manifests.map(({ folder, manifest }) => {
      // Dependencies and peers, as `npm run build` orders them (scripts/build/workspace-graph.ts).
      const declared = { ...manifest.peerDependencies, ...manifest.dependencies };
      return [manifest.name, { name: manifest.name, folder, needs: Object.keys(declared).filter((dep) => names.has(dep)) }];
    }),
  );
}

/** The package and everything it needs, each after what it needs. */
function withNeedsInOrder(workspace: Map<string, WorkspaceFolder>, name: string): WorkspaceFolder[] {
  const order: WorkspaceFolder[] = [];
  const visit = (pkgName: string, path: string[]): void => {
    if (order.some((pkg) => pkg.name === pkgName)) return;
    if (path.includes(pkgName)) throw new Error(`workspace dependency cycle: ${[...path, pkgName].join(' → ')}`);
    const pkg = workspace.get(pkgName);
    if (pkg === undefined) throw new Error(`no workspace package named ${pkgName}`);
    for (const need of pkg.needs) visit(need, [...path, pkgName]);
    order.push(pkg);
  };
  visit(name, []);
  return order;
}

/** The name of a package's build: its sources' digest, and the build names of what it needs. */
export function buildKey(repoDir: string, workspace: Map<string, WorkspaceFolder>, name: string): string {
  const pkg = workspace.get(name)!;
  const own = sourceDigest(join(repoDir, pkg.folder));
  if (pkg.needs.length === 0) return own;
  const hash = createHash('sha256').update(own);
  for (const need of pkg.needs) hash.update('\0').update(need).update('\0').update(buildKey(repoDir, workspace, need));
  return hash.digest('hex').slice(0, 16);
}

/** The version of the repository's compiler: a build by another compiler is another build. */
const compilerVersion = (repoDir: string) => (JSON.parse(readFileSync(join(repoDir, 'node_modules', 'typescript', 'package.json'), 'utf8')) as { version: string }).version;

const cacheFolder = (repoDir: string, name: string, key: string) =>
  join(repoDir, 'node_modules', '.cache', `countersign-${name.replace('@countersign/', '')}-build-ts${compilerVersion(repoDir)}-${key}`);

/** Puts the package's manifest and, when it ships one, its `data/` folder into `node_modules/<name>` under `root`; returns that folder. */
function installShape(repoDir: string, root: string, pkg: WorkspaceFolder): string {
  const installed = join(root, 'node_modules', pkg.name);
  mkdirSync(installed, { recursive: true });
  cpSync(join(repoDir, pkg.folder, 'package.json'), join(installed, 'package.json'));
  const data = join(repoDir, pkg.folder, 'data');
  if (existsSync(data)) cpSync(data, join(installed, 'data'), { recursive: true });
  return installed;
}

/**
 * Builds a package that needs others from a copy of its sources in `staging/scratch/node_modules`,
 * beside the cached builds of what it needs, so `@countersign/...` imports resolve to their built
 * types as for a user; the scratch lies under the repository's node_modules, so the frameworks
 * resolve too. A package that needs nothing is built in place.
 */
function buildPackage(repoDir: string, workspace: Map<string, WorkspaceFolder>, pkg: WorkspaceFolder, needs: Map<string, string>, staging: string): void {
  const packageDir = join(repoDir, pkg.folder);
  if (pkg.needs.length === 0) {
    buildInto(repoDir, join(packageDir, 'tsconfig.build.json'), join(staging, 'dist'), pkg.name);
    return;
  }
  const scratch = join(staging, 'scratch');
  for (const [needName, needCache] of needs) cpSync(join(needCache, 'dist'), join(installShape(repoDir, scratch, workspace.get(needName)!), 'dist'), { recursive: true });
  const copy = installShape(repoDir, scratch, pkg);
  cpSync(join(packageDir, 'src'), join(copy, 'src'), { recursive: true });
  const config = JSON.parse(readFileSync(join(packageDir, 'tsconfig.build.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(copy, 'tsconfig.build.json'), JSON.stringify({ ...config, extends: join(repoDir, 'tsconfig.base.json') }));
  buildInto(repoDir, join(copy, 'tsconfig.build.json'), join(staging, 'dist'), pkg.name);
  rmSync(scratch, { recursive: true, force: true });
}

/**
 * The cache folder of workspace package `name` (e.g. `@countersign/proxy`) built from today's
 * sources, its `dist/` inside, building it and what it needs if no file of this run has.
 */
export async function builtPackageCache(repoDir: string, name: string, workspace = workspaceFolders(repoDir)): Promise<string> {
  const built = new Map<string, string>();
  for (const pkg of withNeedsInOrder(workspace, name)) {
    const needs = new Map([...built].filter(([needName]) => needName !== pkg.name));
    const cache = await cachedBuild(cacheFolder(repoDir, pkg.name, buildKey(repoDir, workspace, pkg.name)), (staging) =>
      buildPackage(repoDir, workspace, pkg, needs, staging),
    );
    built.set(pkg.name, cache);
  }
  return built.get(name)!;
}

/** Installs the cached build of `name` (manifest, dist/, data/) into `root/node_modules`, as an install of the package would. */
export async function installBuiltPackage(repoDir: string, root: string, name: string, workspace = workspaceFolders(repoDir)): Promise<void> {
  const cache = await builtPackageCache(repoDir, name, workspace);
  cpSync(join(cache, 'dist'), join(installShape(repoDir, root, workspace.get(name)!), 'dist'), { recursive: true });
}
