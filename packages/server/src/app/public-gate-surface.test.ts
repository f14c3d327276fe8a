import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

it("the server uses the gate's public methods only, never its internal deps (stores, clock, tool index)", () => {
  const offenders = sourceFiles(SRC).filter((path) => /\.deps\b/.test(readFileSync(path, 'utf8')));
  expect(offenders).toEqual([]);
});
