import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The repository installs two TypeScripts: `typescript`, version 7, the compiler of the
// typecheck and of every build, and `typescript-5`, an npm alias of version 5, with which the
// install test checks that users on TypeScript 5 can read the published declarations (and
// whose JavaScript API the import-graph test parses with). Both declare a `tsc` bin. npm
// links node_modules/.bin/tsc, which `npm run typecheck` and `npx tsc` run, to one of them
// chosen by folder name (npm/cli#9868), not by anything we declare: this fails if it changes.
const repo = join(import.meta.dirname, '..', '..');
const modules = join(repo, 'node_modules');
const versionAt = (packageDir: string) => (JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;

describe('the TypeScript compilers the repository installs', () => {
  it('node_modules/.bin/tsc is TypeScript 7', () => {
    const linkedPackage = join(realpathSync(join(modules, '.bin', 'tsc')), '..', '..');
    expect(linkedPackage).toBe(realpathSync(join(modules, 'typescript')));
    expect(versionAt(linkedPackage)).toMatch(/^7\./);
  });

  it('typescript-5 is TypeScript 5', () => {
    expect(versionAt(join(modules, 'typescript-5'))).toMatch(/^5\./);
  });
});
