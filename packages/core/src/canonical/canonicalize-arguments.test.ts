import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import { canonicalDigest, canonicalizeArguments } from './canonicalize-arguments.ts';
import { rejection } from './rejection.test-helper.ts';
import { RECIPE_ID } from './recipe.ts';

const digestOf = (input: unknown): string => canonicalizeArguments(input).digest;

describe('canonicalizeArguments', () => {
  it('binds the JCS text and its SHA-256', () => {
    const result = canonicalizeArguments('{ "b": [1, 2.50, "x"], "a": null }');
    expect(result.canonical).toBe('{"a":null,"b":[1,2.5,"x"]}');
    expect(result.digest).toBe(sha256Hex('{"a":null,"b":[1,2.5,"x"]}'));
    expect(result.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(result.value).toEqual({ a: null, b: [1, 2.5, 'x'] });
  });

  it('gives 10, 10.0, 1e1 and 1E+1 the same digest', () => {
    const digests = ['{"a":10}', '{"a":10.0}', '{"a":1e1}', '{"a":1E+1}', '{"a":100e-1}'].map(digestOf);
    expect(new Set(digests).size).toBe(1);
    expect(digests[0]).toBe(digestOf({ a: 10 }));
    expect(digestOf('{"a":10}')).not.toBe(digestOf('{"a":11}'));
  });

  it('ignores key order and whitespace', () => {
    expect(digestOf('{"b":1,"a":{"y":2,"x":3}}')).toBe(digestOf('{ "a" : { "x" : 3 , "y" : 2 } ,\n"b":1 }'));
    expect(digestOf({ b: 1, a: 2 })).toBe(digestOf({ a: 2, b: 1 }));
  });

  it('treats escaped and literal characters alike', () => {
    expect(digestOf('{"a":"\\u00e9"}')).toBe(digestOf('{"a":"é"}'));
    expect(digestOf('{"\\u00e9":"\\/"}')).toBe(digestOf('{"é":"/"}'));
    expect(digestOf('{"a":"\\ud83d\\ude02"}')).toBe(digestOf({ a: '😂' }));
  });

  it('agrees between text and value input', () => {
    expect(canonicalizeArguments('{"n":-0,"s":"x"}')).toEqual(canonicalizeArguments({ s: 'x', n: -0 }));
  });

  it('returns a copy of object input, never the caller object', () => {
    const input = { to: 'a@example.com', amount: 5 };
    const result = canonicalizeArguments(input);
    expect(result.value).not.toBe(input);
    input.amount = 5_000;
    expect(result.value).toEqual({ to: 'a@example.com', amount: 5 });
  });

  it('requires a JSON object at the top level by default', () => {
    for (const input of ['[1]', '1', '"x"', 'null', 'true', [], 7, null]) {
      expect(rejection(() => canonicalizeArguments(input))).toEqual({ code: 'unsupported_type', path: '' });
    }
    expect(() => canonicalizeArguments('[1]')).toThrow(/must be a JSON object at the top level, got an array/);
    expect(canonicalizeArguments('[1]', { requireObject: false }).canonical).toBe('[1]');
    expect(canonicalizeArguments(7, { requireObject: false }).canonical).toBe('7');
  });

  it('propagates strict intake errors from both paths', () => {
    expect(rejection(() => canonicalizeArguments('{"a":1,"a":2}')).code).toBe('duplicate_key');
    expect(rejection(() => canonicalizeArguments({ a: Number.NaN })).code).toBe('non_finite');
    expect(rejection(() => canonicalizeArguments('{"a":1', { maxDepth: 5 })).code).toBe('invalid_json');
    expect(rejection(() => canonicalizeArguments('{"a":[[1]]}', { maxDepth: 2 })).code).toBe('too_deep');
  });

  it('applies maxBytes to the canonical output too', () => {
    // 10 bytes of text, 22 bytes canonical: {"a":1000000000000000}
    expect(canonicalizeArguments('{"a":1e15}', { maxBytes: 22 }).canonical).toBe('{"a":1000000000000000}');
    expect(rejection(() => canonicalizeArguments('{"a":1e15}', { maxBytes: 21 }))).toEqual({ code: 'too_large', path: '' });
    // Escapes count at their canonical size: "\u0001" stays 6 bytes.
    expect(rejection(() => canonicalizeArguments({ a: '\u0001'.repeat(10) }, { maxBytes: 40 })).code).toBe('too_large');
    expect(canonicalizeArguments({ a: '\u0001'.repeat(10) }, { maxBytes: 68 }).canonical).toHaveLength(68);
  });
});

describe('canonicalDigest', () => {
  it('hashes any JSON value, and a string as a string (never parsed)', () => {
    expect(canonicalDigest({ b: 1, a: 2 })).toBe(digestOf('{"a":2,"b":1}'));
    expect(canonicalDigest('{"a":1}')).toBe(sha256Hex('"{\\"a\\":1}"'));
    expect(canonicalDigest([1, 'x'])).toBe(sha256Hex('[1,"x"]'));
    expect(rejection(() => canonicalDigest({ f: () => 1 })).code).toBe('unsupported_type');
  });
});

describe('RECIPE_ID', () => {
  it('names this recipe', () => {
    expect(RECIPE_ID).toBe('jcs-sha256-v1');
  });
});
