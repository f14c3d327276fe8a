import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedKeys } from './sorted-keys.ts';

describe('sortedKeys', () => {
  it('gives what slice().sort() gives, and leaves its input as it was', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'binary' }), { maxLength: 24 }), (keys) => {
        const before = keys.slice();
        expect(sortedKeys(keys)).toEqual(keys.slice().sort());
        expect(keys).toEqual(before);
      }),
    );
  });

  it('orders by UTF-16 code units, not code points (an astral character sorts before U+FFFF)', () => {
    expect(sortedKeys(['\uffff', '\u{1f600}', 'a'])).toEqual(['a', '\u{1f600}', '\uffff']);
  });
});
