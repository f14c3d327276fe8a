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
