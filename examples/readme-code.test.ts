import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API } from 'typescript/unstable/sync';
import { describe, expect, it } from 'vitest';
import { readmePrograms, readmeTsBlocks } from '../packages/cli/src/testing/readme-blocks.ts';

// Every ```ts block in README.md is either a complete program or marked `<!-- fragment -->` on
// the line above. Each complete program is kept, byte for byte, in examples/readme/ (written by
// `npm run readme-programs`), and the repository's typecheck (`npm test`, `npm run typecheck`:
// one strict compiler run over every source, tsconfig.json) checks those files against the
// workspace sources. Being ES modules (the repository's package.json says `"type": "module"`),
// each is checked as a program of its own: nothing it declares is seen by another file.
// (The install test also runs the in-process and agent programs from the installed packages.)

const repo = join(import.meta.dirname, '..');
const programsDir = join(import.meta.dirname, 'readme');

describe('README code', () => {
  const blocks = readmeTsBlocks();
  const programs = readmePrograms(blocks);

  it('has TypeScript blocks, and at least one complete program', () => {
    expect(blocks.length).toBeGreaterThan(0);
    expect(programs.length).toBeGreaterThan(0);
  });

  it('every block not marked as a fragment is kept as it is in examples/readme/, and no other file is (else run `npm run readme-programs`)', () => {
    const kept = readdirSync(programsDir).filter((file) => file.endsWith('.ts'));
    expect(kept.sort()).toEqual(programs.map(({ file }) => file).sort());
    for (const { file, block } of programs) expect(readFileSync(join(programsDir, file), 'utf8'), `README line ${block.line}: ${file}`).toBe(block.code);
  });

  it('the typecheck covers every kept program: tsconfig.json lists each of them', () => {
    // Read by the repository's compiler (the native one, through its child-process API), as the typecheck reads it.
    const api = new API({ cwd: repo });
    try {
      const config = api.parseConfigFile(join(repo, 'tsconfig.json'));
      const checked = new Set(config.fileNames);
      expect(programs.map(({ file }) => join(programsDir, file)).filter((path) => !checked.has(path))).toEqual([]);
      expect(config.options.strict).toBe(true);
      expect(config.options.noEmit).toBe(true);
    } finally {
      api.close();
    }
  });

  it('each program is named after its heading, a second one under the same heading with -2', () => {
    const text = ['# Install', '```ts', 'a', '```', '## From an agent: `@countersign/client`', '```ts', 'b', '```', '<!-- fragment -->', '```ts', 'c', '```', '```ts', 'd', '```', ''].join('\n');
    expect(readmePrograms(readmeTsBlocks(text)).map(({ file, block }) => [file, block.code])).toEqual([
      ['install.ts', 'a\n'],
      ['from-an-agent-countersign-client.ts', 'b\n'],
      ['from-an-agent-countersign-client-2.ts', 'd\n'],
    ]);
  });
});
