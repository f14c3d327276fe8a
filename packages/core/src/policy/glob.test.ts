import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileToolPattern } from './glob.ts';

/** Reference semantics, used only to cross-check the string-search matcher. */
function referenceMatch(pattern: string, name: string): boolean {
  const source = pattern
    .split('*')
    .map((part) => part.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${source}$`, 'u').test(name);
}

describe('compileToolPattern', () => {
  it('compares names without a wildcard exactly and case-sensitively', () => {
    const m = compileToolPattern('transfer');
    expect(m('transfer')).toBe(true);
    expect(m('Transfer')).toBe(false);
    expect(m('transfer2')).toBe(false);
    expect(m('xtransfer')).toBe(false);
    expect(m('')).toBe(false);
  });

  it('treats regex metacharacters as literals', () => {
    expect(compileToolPattern('a.b*')('axb')).toBe(false);
    expect(compileToolPattern('a.b*')('a.b')).toBe(true);
    expect(compileToolPattern('a.b*')('a.bc')).toBe(true);
    expect(compileToolPattern('github.*')('githubXissues')).toBe(false);
    expect(compileToolPattern('github.*')('github.issues')).toBe(true);
    expect(compileToolPattern('a+b')('aab')).toBe(false);
    expect(compileToolPattern('(x|y)*')('x')).toBe(false);
    expect(compileToolPattern('(x|y)*')('(x|y)z')).toBe(true);
    expect(compileToolPattern('[ab]')('a')).toBe(false);
    expect(compileToolPattern('^a$')('a')).toBe(false);
  });

  it('anchors at both ends', () => {
    expect(compileToolPattern('delete_*')('delete_repo')).toBe(true);
    expect(compileToolPattern('delete_*')('delete_')).toBe(true);
    expect(compileToolPattern('delete_*')('undelete_repo')).toBe(false);
    expect(compileToolPattern('*_repo')('delete_repo')).toBe(true);
    expect(compileToolPattern('*_repo')('delete_repos')).toBe(false);
  });

  it('lets * match any run including none and newlines', () => {
    expect(compileToolPattern('*')('')).toBe(true);
    expect(compileToolPattern('*')('any\nthing')).toBe(true);
    expect(compileToolPattern('a*b*c')('abc')).toBe(true);
    expect(compileToolPattern('a*b*c')('a\nxbyc')).toBe(true);
    expect(compileToolPattern('a*b*c')('acb')).toBe(false);
    expect(compileToolPattern('ab*ba')('aba')).toBe(false);
    expect(compileToolPattern('a**b')('ab')).toBe(true);
  });

  it('agrees with an escaped-regex reference on random patterns', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', '*', '\\', '(', '|', '$', '?', '\n');
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 8 }), fc.string({ unit: alphabet, maxLength: 10 }), (pattern, name) => {
        expect(compileToolPattern(pattern)(name)).toBe(referenceMatch(pattern, name));
      }),
      { numRuns: 2000 },
    );
  });
});
