import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { InstallFolder } from './install-lockfile.ts';
import { prelinkThirdPartyPackages } from './prelink-packages.ts';

const work = mkdtempSync(join(tmpdir(), 'cs-prelink-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

describe('third-party packages hard-linked from the repository into an install folder', () => {
  it("links each lockfile entry's own files, records them for npm, and leaves ours and the uninstalled to npm", () => {
    const repo = join(work, 'repo');
    write(join(repo, 'node_modules', 'lib', 'index.js'), 'lib');
    write(join(repo, 'node_modules', 'lib', 'dist', 'deep.js'), 'deep');
    write(join(repo, 'node_modules', 'lib', 'node_modules', 'nested', 'index.js'), 'nested 2');
    write(join(repo, 'node_modules', 'unlisted', 'index.js'), 'unlisted');
    const dir = join(work, 'folder');
    mkdirSync(dir);
    const entries = {
      'node_modules/lib': { version: '1.0.0' },
      'node_modules/lib-darwin': { version: '1.0.0', os: ['darwin'] },
      'node_modules/@countersign/core': { version: '0.1.0', resolved: 'file:../core.tgz' },
    };
    const folder: InstallFolder = {
      packageJson: { name: 'f', private: true, type: 'module', dependencies: {} },
      lockfile: { name: 'f', lockfileVersion: 3, requires: true, packages: { '': { name: 'f' }, ...entries } },
    };
    expect(prelinkThirdPartyPackages(repo, dir, folder)).toBe(true);
    const deep = join('node_modules', 'lib', 'dist', 'deep.js');
    expect(statSync(join(dir, deep)).ino).toBe(statSync(join(repo, deep)).ino);
    expect(readFileSync(join(dir, 'node_modules', 'lib', 'index.js'), 'utf8')).toBe('lib');
    // A nested package is an entry of its own: not in this lockfile, not in the folder.
    expect(existsSync(join(dir, 'node_modules', 'lib', 'node_modules'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'unlisted'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', '@countersign'))).toBe(false);
    const recorded = JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8'));
    expect(recorded.packages).toEqual({ 'node_modules/lib': { version: '1.0.0' } });
  });
});
