import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalizeArguments } from './canonicalize-arguments.ts';
import { CanonicalizationError } from './errors.ts';
import { FORBIDDEN_KEYS } from './forbidden-keys.ts';
import { parseStrictJson } from './parse-strict.ts';
import { serializeCanonical } from './serialize.ts';

// JSON values strict intake must accept: safe integers, finite doubles that are not
// unsafe integers, well-formed strings (ASCII and the full code-point range), objects
// without forbidden keys (some with a null prototype).
const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }));
const number = fc.oneof(
  fc.maxSafeInteger(),
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d) || Number.isSafeInteger(d)),
);
const key = text.filter((k) => !FORBIDDEN_KEYS.has(k));
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie('json'), { maxLength: 5 }),
    tie('object'),
  ),
  object: fc.dictionary(key, tie('json'), { maxKeys: 6 }),
}));
const object = fc.dictionary(key, json, { maxKeys: 6 });

/** Deep copy with every object's keys inserted in a seeded random order. */
function shuffleKeys(value: unknown, seed: number): unknown {
  let state = seed >>> 0 || 1;
  const next = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const visit = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(visit);
    if (typeof v !== 'object' || v === null) return v;
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [keys[i], keys[j]] = [keys[j]!, keys[i]!];
    }
    const out: Record<string, unknown> = {};
    for (const k of keys) out[k] = visit((v as Record<string, unknown>)[k]);
    return out;
  };
  return visit(value);
}

describe('canonicalization properties', () => {
  it('is idempotent: canonical text canonicalizes to itself', () => {
    fc.assert(
      fc.property(object, (value) => {
        const { canonical } = canonicalizeArguments(value);
        expect(canonicalizeArguments(canonical).canonical).toBe(canonical);
      }),
      { numRuns: 10_000 },
    );
  });

  it('ignores key order', () => {
    fc.assert(
      fc.property(object, fc.integer(), (value, seed) => {
        const shuffled = shuffleKeys(value, seed);
        const reference = canonicalizeArguments(value);
        expect(canonicalizeArguments(shuffled).canonical).toBe(reference.canonical);
        expect(canonicalizeArguments(JSON.stringify(shuffled)).digest).toBe(reference.digest);
      }),
      { numRuns: 10_000 },
    );
  });

  it('accepts JSON.stringify of any safe value, compact or indented, with the serializer’s bytes', () => {
    fc.assert(
      fc.property(json, (value) => {
        const expected = serializeCanonical(value);
        expect(serializeCanonical(parseStrictJson(JSON.stringify(value)))).toBe(expected);
        expect(serializeCanonical(parseStrictJson(JSON.stringify(value, null, 2)))).toBe(expected);
        // Wrapped: a top-level string given to canonicalizeArguments is JSON text, not a value.
        expect(canonicalizeArguments([value], { requireObject: false }).canonical).toBe(`[${expected}]`);
      }),
      { numRuns: 10_000 },
    );
  });

  it('text and value input bind the same digest', () => {
    fc.assert(
      fc.property(object, (value) => {
        expect(canonicalizeArguments(JSON.stringify(value)).digest).toBe(canonicalizeArguments(value).digest);
      }),
      { numRuns: 10_000 },
    );
  });

  // canonicalizeArguments writes a checked value with the native serializer when its keys
  // were copied in JCS order (copyJsonValue); the general serializer is the reference.
  const mixedKey = fc.oneof(key, fc.constantFrom('0', '9', '10', '01', '1a', '4294967295', '-1', 'a', 'B', 'é', '😀', '\uffff', ''));
  const { mixedJson } = fc.letrec((tie) => ({
    mixedJson: fc.oneof({ depthSize: 'small', maxDepth: 5 }, fc.constant(null), fc.boolean(), number, text, fc.array(tie('mixedJson'), { maxLength: 5 }), tie('mixedObject')),
    mixedObject: fc.dictionary(mixedKey, tie('mixedJson'), { maxKeys: 6 }),
  }));

  it('writes a value’s canonical text byte for byte as the general serializer does, digit-led keys included', () => {
    fc.assert(
      fc.property(fc.dictionary(mixedKey, mixedJson, { maxKeys: 6 }), fc.integer(), (value, seed) => {
        const shuffled = shuffleKeys(value, seed);
        const reference = serializeCanonical(value);
        expect(canonicalizeArguments(shuffled).canonical).toBe(reference);
        expect(canonicalizeArguments([shuffled], { requireObject: false }).canonical).toBe(`[${reference}]`);
      }),
      { numRuns: 10_000 },
    );
  });

  it('orders array-index keys by code unit, not as the engine enumerates them', () => {
    // Any engine enumerates "9" before "10"; JCS writes "10" first. Nested, as at the top.
    const value = { b: { 10: 'x', 9: 'y', a: 'z' }, a: [{ 2: true, 10: false }], 10: null };
    expect(canonicalizeArguments(value).canonical).toBe('{"10":null,"a":[{"10":false,"2":true}],"b":{"10":"x","9":"y","a":"z"}}');
    expect(canonicalizeArguments({ z: 1, y: { d: 1, c: [{ f: 1, e: 2 }] } }).canonical).toBe('{"y":{"c":[{"e":2,"f":1}],"d":1},"z":1}');
  });

  it('rejects any object text with a member repeated, as duplicate_key', () => {
    fc.assert(
      fc.property(object.filter((o) => Object.keys(o).length > 0), json, fc.nat(), (value, other, pick) => {
        const keys = Object.keys(value);
        const repeated = keys[pick % keys.length]!;
        const body = JSON.stringify(value).slice(0, -1);
        const text = `${body},${JSON.stringify(repeated)}:${JSON.stringify(other)}}`;
        try {
          parseStrictJson(text);
          expect.unreachable();
        } catch (error) {
          expect(error).toBeInstanceOf(CanonicalizationError);
          expect((error as CanonicalizationError).code).toBe('duplicate_key');
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
