import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  it("links each lockfile entry's own files and commands, records them for npm, and leaves ours and the uninstalled to npm", () => {
    const repo = join(work, 'repo');
    write(join(repo, 'node_modules', 'lib', 'index.js'), 'lib');
    write(join(repo, 'node_modules', 'lib', 'dist', 'deep.js'), 'deep');
    write(join(repo, 'node_modules', 'lib', 'node_modules', 'nested', 'index.js'), 'nested 2');
    write(join(repo, 'node_modules', 'unlisted', 'index.js'), 'unlisted');
    write(join(repo, 'node_modules', '@scope', 'tool', 'bin', 'cli.js'), 'cli');
    write(join(repo, 'node_modules', 'lib', 'node_modules', 'inner', 'run.js'), 'inner');
    const dir = join(work, 'folder');
    mkdirSync(dir);
    const entries = {
      'node_modules/lib': { version: '1.0.0' },
      'node_modules/@scope/tool': { version: '2.0.0', bin: { tool: 'bin/cli.js', 'tool-alias': 'bin/cli.js' } },
      'node_modules/lib/node_modules/inner': { version: '3.0.0', bin: { inner: 'run.js' } },
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
    expect(existsSync(join(dir, 'node_modules', 'lib', 'node_modules', 'nested'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', 'unlisted'))).toBe(false);
    expect(existsSync(join(dir, 'node_modules', '@countersign'))).toBe(false);
    const recorded = JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8'));
    const { 'node_modules/lib-darwin': _notInstalled, 'node_modules/@countersign/core': _ours, ...thirdParty } = entries;
    expect(recorded.packages).toEqual(thirdParty);
    // Each command in the .bin folder of the node_modules that holds its package, as npm links it.
    const command = (binDir: string, name: string) => realpathSync(join(dir, binDir, '.bin', name));
    expect(command('node_modules', 'tool')).toBe(realpathSync(join(dir, 'node_modules', '@scope', 'tool', 'bin', 'cli.js')));
    expect(command('node_modules', 'tool-alias')).toBe(realpathSync(join(dir, 'node_modules', '@scope', 'tool', 'bin', 'cli.js')));
    expect(command(join('node_modules', 'lib', 'node_modules'), 'inner')).toBe(realpathSync(join(dir, 'node_modules', 'lib', 'node_modules', 'inner', 'run.js')));
    expect(existsSync(join(dir, 'node_modules', '@scope', '.bin'))).toBe(false);
  });
});
