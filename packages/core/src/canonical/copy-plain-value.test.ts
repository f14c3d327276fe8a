import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { copyPlainValue } from './copy-plain-value.ts';
import { CanonicalizationError } from './errors.ts';
import { validateJsonValue, walkJsonValue } from './validate-value.ts';

// copyPlainValue is validateJsonValue's shortcut for ordinary data: it must accept exactly
// what the full walk accepts, with the same copy, and give up on everything else.

const LIMITS = { maxDepth: 8, maxBytes: 400 };

/** Values with every kind of thing intake refuses, mixed into plain data. */
const { anything } = fc.letrec((tie) => ({
  anything: fc.oneof(
    { depthSize: 'small', maxDepth: 6 },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.constantFrom(2 ** 53, -(2 ** 53), Number.NaN, Number.POSITIVE_INFINITY, -0, undefined, 10n, Symbol('s'), () => 1, new Date(0), '\ud800', 'x'.repeat(300)),
    fc.string(),
    fc.array(tie('anything'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '10', '9', '\udc00')), tie('anything'), { maxKeys: 4 }),
  ),
}));

function walkOutcome(value: unknown): { ok: true; copy: unknown; jcs: boolean } | { ok: false; code: string } {
  try {
    const walked = walkJsonValue(value, LIMITS.maxDepth, LIMITS.maxBytes, true);
    return { ok: true, copy: walked.value, jcs: walked.keysInJcsOrder };
  } catch (error) {
    if (!(error instanceof CanonicalizationError)) throw error;
    return { ok: false, code: error.code };
  }
}

describe('copyPlainValue: the shortcut of validateJsonValue', () => {
  it('accepts exactly what the full walk accepts, with an equal copy (key order included)', () => {
    fc.assert(
      fc.property(anything, (value) => {
        const fast = copyPlainValue(value, LIMITS.maxDepth, LIMITS.maxBytes, true);
        const walked = walkOutcome(value);
        if (!walked.ok) {
          expect(fast).toBeUndefined();
          return;
        }
        expect(fast).toBeDefined();
        expect(fast!.keysInJcsOrder).toBe(walked.jcs);
        expect(JSON.stringify(fast!.value)).toBe(JSON.stringify(walked.copy));
        expect(fast!.value).toStrictEqual(walked.copy);
      }),
      { numRuns: 20_000 },
    );
  });

  it('gives up on a cycle (the walk names it), and on a huge array before looking at its elements', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(copyPlainValue(cyclic, 64, 1 << 20, true)).toBeUndefined();
    expect(() => validateJsonValue(cyclic)).toThrow(expect.objectContaining({ code: 'cycle' }));

    // An array-like claiming four billion elements: refused on its length alone. (Looking
    // throws after a while, so a missing guard fails this test instead of hanging it.)
    let looked = 0;
    const huge = new Proxy([], {
      get: (target, key) => (key === 'length' ? 2 ** 32 - 1 : Reflect.get(target, key)),
      getOwnPropertyDescriptor: (target, key) => {
        if (++looked > 1000) throw new Error('looked at too many elements');
        return key === 'length' ? Reflect.getOwnPropertyDescriptor(target, key) : { value: 1, writable: true, enumerable: true, configurable: true };
      },
    });
    expect(copyPlainValue(huge, 64, 1 << 20, true)).toBeUndefined();
    expect(looked).toBe(0);
  });

  it('does not read a hole through the prototype', () => {
    const sparse: unknown[] = [];
    sparse[1] = 'b';
    // An extra property makes the own-key count what a dense array's would be.
    (sparse as unknown as Record<string, unknown>).extra = 'x';
    const proto = Array.prototype as unknown as Record<number, unknown>;
    proto[0] = 'from the prototype';
    try {
      expect(copyPlainValue(sparse, 64, 1 << 20, true)).toBeUndefined();
      expect(() => validateJsonValue(sparse)).toThrow(expect.objectContaining({ code: 'unsupported_type' }));
    } finally {
      delete proto[0];
    }
  });

  it('reads a getter once per copy and keeps what it read', () => {
    let reads = 0;
    const value = {
      get amount() {
        reads++;
        return reads === 1 ? 5 : 5000;
      },
    };
    expect(validateJsonValue(value)).toEqual({ amount: 5 });
    expect(reads).toBe(1);
  });
});
