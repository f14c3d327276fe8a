import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// The install test's folders install with `npm ci` from a lockfile cut out of the
// repository's: `npm install` resolves every package from its full registry document, which
// the repository's own `npm ci` never stores in npm's cache (it keeps the abbreviated ones
// and the tarballs), so a folder's install went to the registry, or failed offline. Cut from
// the repository's lockfile, a folder gets the very versions `npm ci` already cached, and
// `npm ci --offline` checks the cut: a dependency it lacks, or one nothing needs, is refused.

type LockEntry = {
  version?: string;
  resolved?: string;
  link?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [field: string]: unknown;
};

/** What a lockfile entry repeats of a package's package.json. */
const MANIFEST_FIELDS = ['version', 'license', 'engines', 'bin', 'dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta'] as const;

/** A package.json and the package-lock.json that installs it. */
export interface InstallFolder {
  packageJson: { name: string; private: true; type: 'module'; dependencies: Record<string, string> };
  lockfile: { name: string; lockfileVersion: 3; requires: true; packages: Record<string, LockEntry> };
}

/** The repository lockfile's packages: what its `npm ci` put in npm's cache. */
export function readRepositoryLock(repo: string): Record<string, LockEntry> {
  return (JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> }).packages;
}

/**
 * The folder `dir` depending on `tarballs` (our packed packages) and on `frameworks` at the
 * repository's versions. Every other package is the repository's at the same place in the tree,
 * reached only through what the tarballs' own package.json files and the frameworks declare:
 * a package ours uses without declaring it is missing there.
 */
export function installFolder(name: string, dir: string, tarballs: readonly string[], frameworks: readonly string[], repoLock: Record<string, LockEntry>): InstallFolder {
  const entries = new Map<string, LockEntry>();
  const dependencies: Record<string, string> = {};
  for (const tarball of tarballs) {
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as LockEntry & { name: string };
    const spec = `file:${relative(dir, tarball)}`;
    dependencies[manifest.name] = spec;
    const declared = MANIFEST_FIELDS.filter((field) => manifest[field] !== undefined).map((field) => [field, manifest[field]]);
    entries.set(`node_modules/${manifest.name}`, { resolved: spec, ...Object.fromEntries(declared) });
  }
  for (const framework of frameworks) {
    const version = repoLock[`node_modules/${framework}`]?.version;
    if (version === undefined) throw new Error(`${framework} is not in package-lock.json`);
    dependencies[framework] = version;
  }
  const at = (path: string): LockEntry | undefined => entries.get(path) ?? (repoLock[path]?.link === true ? undefined : repoLock[path]);
  const packages: Record<string, LockEntry> = {};
  const queue: Array<{ from: string; names: string[] }> = [{ from: '', names: Object.keys(dependencies) }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const dependency of next.names) {
      const path = resolveFrom(next.from, dependency, at);
      if (path === undefined) throw new Error(`${dependency}, which ${next.from || name} declares, is not in package-lock.json`);
      if (path in packages) continue;
      // The repository's dev and optional flags describe its own tree; npm works this folder's out.
      const { dev: _dev, optional: _optional, devOptional: _devOptional, peer: _peer, ...entry } = at(path)!;
      // Another platform's builds the repository's lockfile left out, the folder leaves out too.
      const optional = Object.keys(entry.optionalDependencies ?? {}).filter((n) => resolveFrom(path, n, at) !== undefined);
      if (entry.optionalDependencies !== undefined) entry.optionalDependencies = Object.fromEntries(optional.map((n) => [n, entry.optionalDependencies![n]!]));
      packages[path] = entry;
      queue.push({ from: path, names: [...Object.keys(entry.dependencies ?? {}), ...optional] });
      // npm installs peers beside the package that wants them; optional ones only when something else brings them.
      const peers = Object.keys(entry.peerDependencies ?? {}).filter((n) => entry.peerDependenciesMeta?.[n]?.optional !== true);
      queue.push({ from: parentOf(path), names: peers });
    }
  }
  const folder = `countersign-install-${name}`;
  return {
    packageJson: { name: folder, private: true, type: 'module', dependencies },
    lockfile: { name: folder, lockfileVersion: 3, requires: true, packages: { '': { name: folder, dependencies }, ...packages } },
  };
}

/** Where Node finds `name` from the package at `from`: its own node_modules, then each enclosing one. */
function resolveFrom(from: string, name: string, at: (path: string) => LockEntry | undefined): string | undefined {
  for (let base = from; ; base = parentOf(base)) {
    const path = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (at(path) !== undefined) return path;
    if (base === '') return undefined;
  }
}

/** The package whose node_modules holds the one at `path` ('' for the project). */
function parentOf(path: string): string {
  const at = path.lastIndexOf('/node_modules/');
  return at === -1 ? '' : path.slice(0, at);
}
