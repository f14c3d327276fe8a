import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTimedAssertions, findTimedAssertionsIn } from './find-timed-assertions.ts';

// House rule: benchmarks are scripts (`npm run bench`), never timed assertions in tests.
// A test that must show a wait ended by an event, not a fallback, makes the fallback
// longer than the test timeout (or freezes timers, or counts the work) instead.

const repo = join(import.meta.dirname, '..', '..');
/** `file:line` of a timed assertion kept on purpose, with the reason beside it. Keep it empty. */
const ALLOWED: readonly string[] = [];
const fixture = (name: string) => readFileSync(join(import.meta.dirname, name), 'utf8');

describe('no timed assertions in tests', () => {
  it('no test file asserts on an elapsed time', () => {
    const found = findTimedAssertionsIn(repo).filter((t) => !ALLOWED.includes(`${t.file}:${t.line}`));
    expect(found.map((t) => `${t.file}:${t.line}: ${t.text}`)).toEqual([]);
  });

  it('finds the clock in the subject, directly or through a name that holds an elapsed time, on one line or several', () => {
    const source = fixture('timed.fixture.txt');
    const found = findTimedAssertions('timed.test.ts', source);
    expect(found.map((t) => t.line)).toEqual([3, 4, 6, 8, 9]);
    // Named by file and line, with the line's text, so the failure says what to rewrite.
    expect(found[0]).toEqual({ file: 'timed.test.ts', line: 3, text: source.split('\n')[2]?.trim() });
  });

  it('leaves alone clock readings no assertion is about, and assertions about other values', () => {
    expect(findTimedAssertions('untimed.test.ts', fixture('untimed.fixture.txt'))).toEqual([]);
  });
});
