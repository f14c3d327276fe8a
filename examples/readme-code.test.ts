import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readmeTsBlocks } from '../packages/cli/src/testing/readme-blocks.ts';

// Every ```ts block in README.md is either a complete program, type-checked here against
// the workspace sources with the repository's strict settings, or marked `<!-- fragment -->`
// on the line above. (The install test also runs the agent program against `countersign serve`.)

const repo = join(import.meta.dirname, '..');
// Packages' own ambient declarations for untyped dependencies: the blocks compile against the
// packages' sources (as in the repository), so these travel with them (built packages carry them).
const AMBIENT_DECLARATIONS = [join(repo, 'packages', 'semantic', 'src', 'text', 'porter2.d.ts')];
// Under node_modules/, so the blocks resolve @countersign/* and their dependencies as the repository does.
const dir = join(repo, 'node_modules', '.cache', 'readme-code');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('README code', () => {
  const blocks = readmeTsBlocks();
  const programs = blocks.filter((block) => !block.fragment);

  it('has TypeScript blocks, and at least one complete program', () => {
    expect(blocks.length).toBeGreaterThan(0);
    expect(programs.length).toBeGreaterThan(0);
  });

  it('every block not marked as a fragment type-checks as a program of its own (tsc --strict)', () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const files = programs.map((block) => {
      const file = `readme-line-${block.line}.ts`;
      writeFileSync(join(dir, file), block.code);
      return file;
    });
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: join(repo, 'tsconfig.base.json'), compilerOptions: { noEmit: true }, files: [...files, ...AMBIENT_DECLARATIONS] }));
    const tsc = spawnSync(process.execPath, [join(repo, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    // Errors name the README line the block starts on (readme-line-N.ts).
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 300_000);
});
