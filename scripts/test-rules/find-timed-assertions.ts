import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** An assertion that reads the clock: where it is and what it says. */
export interface TimedAssertion {
  file: string;
  line: number;
  text: string;
}

/** A clock reading with something subtracted: `Date.now() - started`, `performance.now() - t0`. */
const ELAPSED = /\b(?:Date|performance)\.now\(\)\s*-/;
/** A name given an elapsed time: `const wakeMs = performance.now() - decidedAt`, `{ ms: Date.now() - started }`. */
const NAMED_ELAPSED = /([A-Za-z_$][\w$]*)\s*[:=]\s*(?:Date|performance)\.now\(\)\s*-/g;
const EXPECT = /\bexpect(?:\.soft)?\(/g;

/** Where the test files live (as `vitest.config.ts` includes them). */
const TEST_GLOBS = ['packages/*/src/**/*.test.ts', 'packages/integrations/*/src/**/*.test.ts', 'examples/**/*.test.ts', 'bench/**/*.test.ts', 'scripts/**/*.test.ts'];

/**
 * The `expect(...)` calls of one test file whose subject is an elapsed time, read from
 * the clock inside the call or through a name that holds one. A test that asserts how
 * long something took fails on a loaded machine and proves little: it should assert
 * what ended the wait instead (see the house rule in DESIGN.md).
 */
export function findTimedAssertions(file: string, source: string): TimedAssertion[] {
  const names = [...source.matchAll(NAMED_ELAPSED)].map((m) => m[1] as string);
  const holdsElapsed = names.length === 0 ? undefined : new RegExp(`\\b(?:${names.map(escapeRegExp).join('|')})\\b`);
  const found: TimedAssertion[] = [];
  for (const match of source.matchAll(EXPECT)) {
    const start = match.index + match[0].length;
    const subject = source.slice(start, closingParen(source, start));
    if (ELAPSED.test(subject) || holdsElapsed?.test(subject) === true) {
      const line = source.slice(0, match.index).split('\n').length;
      found.push({ file, line, text: (source.split('\n')[line - 1] ?? '').trim() });
    }
  }
  return found;
}

/** Every timed assertion in the repository's test files. */
export function findTimedAssertionsIn(repo: string): TimedAssertion[] {
  const files = TEST_GLOBS.flatMap((pattern) => globSync(pattern, { cwd: repo, exclude: ['**/node_modules/**', '**/dist/**'] }));
  return [...new Set(files)].sort().flatMap((file) => findTimedAssertions(file, readFileSync(join(repo, file), 'utf8')));
}

/** The index just past the argument list that starts at `from` (inside `expect(`); strings are not told apart, which is close enough for a subject. */
function closingParen(source: string, from: number): number {
  let depth = 1;
  for (let i = from; i < source.length; i++) {
    if (source[i] === '(') depth++;
    else if (source[i] === ')' && --depth === 0) return i;
  }
  return source.length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[$]/g, '\\$&');
}
