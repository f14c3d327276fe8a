import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The `countersign` entry checks the Node version before loading anything, so an old
// Node gets one line saying what it needs instead of ERR_UNKNOWN_FILE_EXTENSION.
const ENTRY = join(import.meta.dirname, '..', 'bin', 'countersign.js');
/** The machine's default Node (20), older than Countersign supports. */
const OLD_NODE = '/usr/bin/node';
const oldVersion = existsSync(OLD_NODE) ? spawnSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() : '';
const isOld = /^(\d+)\.(\d+)/.test(oldVersion) && (Number(oldVersion.split('.')[0]) < 22 || (oldVersion.startsWith('22.') && Number(oldVersion.split('.')[1]) < 18));

describe('the countersign entry on Node versions', () => {
  it.skipIf(!isOld)(`on Node ${oldVersion || '< 22.18'}: one clear line, exit 2, for sources and built files alike`, () => {
    for (const args of [['--conditions=countersign-source', ENTRY, 'serve'], [ENTRY, '--help']]) {
      const run = spawnSync(OLD_NODE, args, { encoding: 'utf8', timeout: 30_000 });
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(`Countersign needs Node >= 22.18 (found ${oldVersion})`);
      expect(run.stderr).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
      expect(run.stdout).toBe('');
    }
  });

  it('on this Node: the entry runs the CLI from the sources', () => {
    const run = spawnSync(process.execPath, ['--conditions=countersign-source', ENTRY, '--help'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Usage: countersign');
  });
});
