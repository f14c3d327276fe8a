import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsUtf8Bytes, utf8Length } from './utf8-length.ts';

describe('utf8Length', () => {
  it('matches Buffer.byteLength, lone surrogates included (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) }), (wellFormed, anyUnits) => {
        expect(utf8Length(wellFormed)).toBe(Buffer.byteLength(wellFormed, 'utf8'));
        expect(utf8Length(anyUnits)).toBe(Buffer.byteLength(anyUnits, 'utf8'));
      }),
      { numRuns: 10_000 },
    );
  });

  it('decides the limit the same way in every band', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), fc.integer({ min: 1, max: 200 }), (text, maxBytes) => {
        expect(exceedsUtf8Bytes(text, maxBytes)).toBe(Buffer.byteLength(text, 'utf8') > maxBytes);
      }),
      { numRuns: 10_000 },
    );
  });
});
