import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// The workspace packages and which of them each one needs built first. Read from the
// package.json files, so a new package or dependency needs no change here.

export interface WorkspacePackage {
  /** `@countersign/cli` */
  name: string;
  /** `packages/cli`, relative to the repository. */
  folder: string;
  /**
   * Names of the workspace packages its build imports: dependencies and peer dependencies.
   * Not dev dependencies: those serve its tests, which the build leaves out (the client's
   * tests use the server, whose testing entry builds against the client).
   */
  needs: string[];
}

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readJson = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

/** Every workspace package of the repository at `repo`, in the root package.json's order. */
export function readWorkspace(repo: string): WorkspacePackage[] {
  const folders = (readJson(join(repo, 'package.json')) as { workspaces: string[] }).workspaces;
  const manifests = folders.map((folder) => ({ folder, manifest: readJson(join(repo, folder, 'package.json')) as Manifest }));
  const names = new Set(manifests.map(({ manifest }) => manifest.name));
  return manifests.map(({ folder, manifest }) => {
    const declared = { ...manifest.peerDependencies, ...manifest.dependencies };
    return { name: manifest.name, folder, needs: Object.keys(declared).filter((dep) => names.has(dep)) };
  });
}

/**
 * The packages `asked` names (`@countersign/cli`, `cli` or `packages/cli`) with everything
 * they need, or the whole workspace when nothing is asked. Throws on a name it does not know.
 */
export function selectWithNeeds(workspace: readonly WorkspacePackage[], asked: readonly string[]): WorkspacePackage[] {
  if (asked.length === 0) return [...workspace];
  const byName = new Map(workspace.map((pkg) => [pkg.name, pkg]));
  const find = (word: string) =>
    workspace.find((pkg) => pkg.name === word || pkg.folder === word.replace(/\/+$/, '') || pkg.name === `@countersign/${word}`);
  const chosen = new Set<string>();
  const add = (pkg: WorkspacePackage): void => {
    if (chosen.has(pkg.name)) return;
    chosen.add(pkg.name);
    for (const need of pkg.needs) add(byName.get(need)!);
  };
  for (const word of asked) {
    const pkg = find(word);
    if (pkg === undefined) throw new Error(`no workspace package named ${JSON.stringify(word)} (try one of: ${workspace.map((p) => p.name).join(', ')})`);
    add(pkg);
  }
  return workspace.filter((pkg) => chosen.has(pkg.name));
}

/** Throws when the packages' needs form a cycle (no build order exists). */
export function assertAcyclic(packages: readonly WorkspacePackage[]): void {
  const state = new Map<string, 'visiting' | 'done'>();
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const visit = (pkg: WorkspacePackage, path: string[]): void => {
    if (state.get(pkg.name) === 'done') return;
    if (state.get(pkg.name) === 'visiting') throw new Error(`workspace dependency cycle: ${[...path, pkg.name].join(' → ')}`);
    state.set(pkg.name, 'visiting');
    for (const need of pkg.needs) {
      const next = byName.get(need);
      if (next !== undefined) visit(next, [...path, pkg.name]);
    }
    state.set(pkg.name, 'done');
  };
  for (const pkg of packages) visit(pkg, []);
}
