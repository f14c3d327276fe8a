import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { flatCanonicalText } from './flat-canonical.ts';
import { serializeCanonical } from './serialize.ts';

// flatCanonicalText writes flat objects without the general serializer; where it answers,
// it must answer serializeCanonical's bytes, and it must leave everything else to it.
function serializerAnswer(value: unknown): string | 'throws' {
  try {
    return serializeCanonical(value);
  } catch {
    return 'throws';
  }
}

describe('flatCanonicalText', () => {
  it('gives serializeCanonical bytes for any flat object it writes', () => {
    const scalar = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.constant(-0),
    );
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary', maxLength: 6 }), scalar, { maxKeys: 10 }), (value) => {
        const fast = flatCanonicalText(value);
        // Undefined hands the value to the serializer itself, so only a written answer is compared.
        if (fast !== undefined) expect(fast).toBe(serializerAnswer(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves nesting, non-plain objects, toJSON, lone surrogates and non-finite numbers to the serializer', () => {
    for (const [index, value] of [
      { a: { b: 1 } },
      { a: [1] },
      [1, 2],
      new Date(0),
      { toJSON: () => 1 },
      { s: '\ud800' },
      { '\udc00': 1 },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { f: () => 1 },
      { b: 1n },
      'text',
      null,
      1,
    ].entries()) {
      expect(flatCanonicalText(value), `case ${index}`).toBeUndefined();
    }
  });

  it('writes the common tool result and audit detail shapes', () => {
    expect(flatCanonicalText({ ok: true })).toBe('{"ok":true}');
    expect(flatCanonicalText({ b: 'x', a: 1.5, c: null, d: undefined, e: -0 })).toBe('{"a":1.5,"b":"x","c":null,"e":0}');
    expect(flatCanonicalText(Object.create(null))).toBe('{}');
  });
});
