import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installBuiltPackage, workspaceFolders } from './built-package.ts';

/** The fields of a workspace package's package.json these checks read. */
export interface PackageManifest {
  exports: Record<string, Record<string, string>>;
  peerDependencies?: Record<string, string> | undefined;
}

export function readManifest(packageDir: string): PackageManifest {
  return JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackageManifest;
}

/** Every subpath mirrors a source folder and has the source, types and built conditions (the repo's subpath pattern). */
export function expectExportsMirrorSources(packageDir: string, manifest: PackageManifest = readManifest(packageDir)): void {
  for (const [subpath, conditions] of Object.entries(manifest.exports)) {
    const folder = subpath === '.' ? '' : `${subpath.slice(2)}/`;
    expect(conditions, subpath).toEqual({
      'countersign-source': `./src/${folder}index.ts`,
      types: `./dist/${folder}index.d.ts`,
      default: `./dist/${folder}index.js`,
    });
    expect(existsSync(join(packageDir, 'src', folder, 'index.ts')), subpath).toBe(true);
  }
}

/** Puts `@countersign/<name>`'s package.json into `scratch/node_modules`, as an install would; returns its folder. */
export function installManifest(scratch: string, name: string, packageDir: string): string {
  const installed = join(scratch, 'node_modules', '@countersign', name);
  mkdirSync(installed, { recursive: true });
  cpSync(join(packageDir, 'package.json'), join(installed, 'package.json'));
  return installed;
}

export interface IntegrationExportsCheck {
  /** The package's name under `@countersign/` (e.g. `ai-sdk`). */
  name: string;
  packageDir: string;
  repoDir: string;
  /** The framework packages it expects as peers, in package.json order. */
  peers: string[];
  /** Exports the built package's root must have as functions. */
  functions: string[];
  /** Functions other subpaths must export (e.g. `{ workflow: ['countersignWorkflow'] }` for `@countersign/<name>/workflow`). */
  subpathFunctions?: Record<string, string[]> | undefined;
  /**
   * Workspace packages it depends on besides core, as folders under `packages/`, dependencies
   * first (e.g. `["semantic", "proxy"]`): each is installed from its shared build (built-package.ts) beside core.
   */
  workspaceDeps?: string[] | undefined;
}

/**
 * The package-exports tests of a framework integration: its subpaths follow the repo's
 * pattern, its framework is a peer, and, built with core into a throwaway node_modules
 * under the repo's (so the framework resolves as it would for a user), it imports with
 * plain node: no source condition, no TypeScript.
 */
export function describeBuiltIntegration(check: IntegrationExportsCheck): void {
  const { name, packageDir, repoDir } = check;
  const manifest = readManifest(packageDir);
  describe(`@countersign/${name} package exports`, () => {
    it(`every subpath mirrors a source folder and has source, types and built conditions; peers: ${check.peers.join(', ')}`, () => {
      expectExportsMirrorSources(packageDir, manifest);
      expect(Object.keys(manifest.peerDependencies ?? {})).toEqual(check.peers);
    });

    const scratch = join(repoDir, 'node_modules', '.cache', `countersign-${name}-dist-${process.pid}`);
    afterAll(() => rmSync(scratch, { recursive: true, force: true }));

    it('the built package imports with plain node', async () => {
      // Each package's build is shared with the other package-exports tests and the install
      // test (built-package.ts): built from a copy beside the builds it needs, so
      // `@countersign/core` resolved to its dist types, as for a user.
      const workspace = workspaceFolders(repoDir);
      for (const pkg of ['core', ...(check.workspaceDeps ?? []), name]) await installBuiltPackage(repoDir, scratch, `@countersign/${pkg}`, workspace);
      const expected: Array<[string, string[]]> = [[`@countersign/${name}`, check.functions]];
      for (const [subpath, functions] of Object.entries(check.subpathFunctions ?? {})) expected.push([`@countersign/${name}/${subpath}`, functions]);
      const script = `
        const types = [];
        for (const [specifier, functions] of ${JSON.stringify(expected)}) {
          const m = await import(specifier);
          for (const f of functions) types.push(typeof m[f]);
        }
        process.stdout.write(types.join(','));
      `;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: scratch, encoding: 'utf8' });
      expect(out).toBe(expected.flatMap(([, functions]) => functions.map(() => 'function')).join(','));
    }, 180_000);
  });
}
