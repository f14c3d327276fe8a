import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TsBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The last heading above the block. */
  heading: string;
  /** Marked `<!-- fragment -->` on the line above: shows part of a program, not checked. */
  fragment: boolean;
  code: string;
}

export const README_PATH = join(import.meta.dirname, '..', '..', '..', '..', 'README.md');

/** Every ```ts block of the README, in order, with its indentation removed. */
export function readmeTsBlocks(text = readFileSync(README_PATH, 'utf8')): TsBlock[] {
  const lines = text.split('\n');
  const blocks: TsBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^#{1,6} /.test(line)) heading = line.replace(/^#+ /, '');
    const open = /^(\s*)```ts\s*$/.exec(line);
    if (!open) continue;
    const indent = open[1]!.length;
    const start = i;
    const body: string[] = [];
    for (i += 1; i < lines.length && !/^\s*```\s*$/.test(lines[i]!); i++) body.push(lines[i]!.slice(indent));
    let above = start - 1;
    while (above >= 0 && lines[above]!.trim() === '') above--;
    blocks.push({ line: start + 1, heading, fragment: lines[above]?.trim() === '<!-- fragment -->', code: `${body.join('\n')}\n` });
  }
  return blocks;
}

/** A complete program of the README (a block not marked as a fragment) and the file it is kept in. */
export interface ReadmeProgram {
  /** The file name under examples/readme/, from the heading above the block. */
  file: string;
  block: TsBlock;
}

/** `In process (any framework)` → `in-process-any-framework`. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/**
 * The README's complete programs, each named after its heading (a second program under one
 * heading gets `-2`, and so on). They are kept as files in examples/readme/ so that `npm test`'s
 * typecheck, which checks every source of the repository in one compiler run, checks them too.
 */
export function readmePrograms(blocks: readonly TsBlock[] = readmeTsBlocks()): ReadmeProgram[] {
  const seen = new Map<string, number>();
  return blocks
    .filter((block) => !block.fragment)
    .map((block) => {
      const name = slug(block.heading) || 'program';
      const count = (seen.get(name) ?? 0) + 1;
      seen.set(name, count);
      return { file: `${count === 1 ? name : `${name}-${count}`}.ts`, block };
    });
}
