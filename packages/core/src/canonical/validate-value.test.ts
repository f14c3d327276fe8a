import { describe, expect, it } from 'vitest';
import { rejection } from './rejection.test-helper.ts';
import { validateJsonValue } from './validate-value.ts';

const rejectionOf = (value: unknown, limits?: { maxDepth?: number; maxBytes?: number }) =>
  rejection(() => validateJsonValue(value, limits));

describe('validateJsonValue: accepts plain JSON data', () => {
  it('returns an equal, detached copy', () => {
    const input = { a: [1, 'x', true, null, { b: 0.5 }], c: {} };
    const copy = validateJsonValue(input) as typeof input;
    expect(copy).toEqual(input);
    expect(copy).not.toBe(input);
    expect(copy.a).not.toBe(input.a);
    input.a.push('later');
    (input.a[4] as { b: number }).b = 99;
    expect(copy).toEqual({ a: [1, 'x', true, null, { b: 0.5 }], c: {} });
  });

  it('reads each property once, so a getter cannot show one value and run another', () => {
    let reads = 0;
    const input = {
      get amount() {
        reads++;
        return reads === 1 ? 1 : 1_000_000;
      },
    };
    const copy = validateJsonValue(input) as { amount: number };
    expect(reads).toBe(1);
    expect(copy.amount).toBe(1);
    expect(Object.getOwnPropertyDescriptor(copy, 'amount')?.get).toBeUndefined();
  });

  it('accepts null-prototype objects and scalars at the top level', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.k = 'v';
    expect(validateJsonValue(bare)).toEqual({ k: 'v' });
    expect(validateJsonValue('text')).toBe('text');
    expect(validateJsonValue(null)).toBe(null);
  });

  it('accepts the edges of the safe number range and copies -0 as 0', () => {
    expect(validateJsonValue([Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0.5, 5e-324, 4503599627370495.5])).toHaveLength(5);
    const copy = validateJsonValue({ z: -0, list: [-0] }) as { z: number; list: number[] };
    expect(Object.is(copy.z, 0)).toBe(true);
    expect(Object.is(copy.list[0], 0)).toBe(true);
    expect(Object.is(validateJsonValue(-0), 0)).toBe(true);
  });

  it('allows shared, non-cyclic references (written twice, as JSON would)', () => {
    const shared = { s: 1 };
    expect(validateJsonValue({ a: shared, b: [shared, shared] })).toEqual({ a: { s: 1 }, b: [{ s: 1 }, { s: 1 }] });
  });

  it('accepts exactly maxDepth levels', () => {
    let value: unknown = 1;
    for (let i = 0; i < 64; i++) value = [value];
    expect(() => validateJsonValue(value)).not.toThrow();
  });
});

describe('validateJsonValue: rejections', () => {
  it('non_finite: NaN and ±Infinity, with their path', () => {
    expect(rejectionOf({ a: [1, Number.NaN] })).toEqual({ code: 'non_finite', path: '/a/1' });
    expect(rejectionOf(Number.POSITIVE_INFINITY)).toEqual({ code: 'non_finite', path: '' });
    expect(rejectionOf({ x: Number.NEGATIVE_INFINITY }).code).toBe('non_finite');
  });

  it('unsafe_integer: integers beyond ±(2^53−1)', () => {
    expect(rejectionOf({ n: 2 ** 53 })).toEqual({ code: 'unsafe_integer', path: '/n' });
    expect(rejectionOf([-(2 ** 53)]).code).toBe('unsafe_integer');
    expect(rejectionOf({ n: 1e300 }).code).toBe('unsafe_integer');
  });

  it('lone_surrogate: in values and keys', () => {
    expect(rejectionOf({ s: 'a\ud800' })).toEqual({ code: 'lone_surrogate', path: '/s' });
    expect(rejectionOf(['\udc00']).code).toBe('lone_surrogate');
    expect(rejectionOf({ '\ud83d': 1 })).toEqual({ code: 'lone_surrogate', path: '/\ud83d' });
  });

  it('forbidden_key: own __proto__ (as JSON.parse creates it), constructor, prototype', () => {
    expect(rejectionOf(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toEqual({ code: 'forbidden_key', path: '/a/__proto__' });
    expect(rejectionOf({ constructor: 'x' })).toEqual({ code: 'forbidden_key', path: '/constructor' });
    expect(rejectionOf([{ prototype: {} }])).toEqual({ code: 'forbidden_key', path: '/0/prototype' });
    const defined = Object.defineProperty({}, '__proto__', { value: 1, enumerable: true });
    expect(rejectionOf(defined).code).toBe('forbidden_key');
  });

  const unsupported: Array<[string, unknown, string]> = [
    ['a function', { f: () => 1 }, '/f'],
    ['a symbol', { s: Symbol('s') }, '/s'],
    ['a BigInt', { n: 10n }, '/n'],
    ['undefined at the top', undefined, ''],
    ['an undefined property (JSON.stringify would drop it)', { a: 1, b: undefined }, '/b'],
    ['undefined in an array', [1, undefined], '/1'],
    ['a Date', { d: new Date(0) }, '/d'],
    ['a Map', { m: new Map() }, '/m'],
    ['a Set', [new Set([1])], '/0'],
    ['a class instance', { c: new (class Point {})() }, '/c'],
    ['a boxed string', { s: new String('x') }, '/s'],
    ['a typed array', { b: new Uint8Array(2) }, '/b'],
    // biome-ignore lint/suspicious/noSparseArray: the hole is what this case tests
    ['a sparse array', { a: [1, , 3] }, '/a'],
    ['an array with a hole at the end', { a: Object.assign([1], { length: 2 }) }, '/a'],
    ['an array with extra properties', { a: Object.assign([1, 2], { extra: true }) }, '/a'],
    ['an object with a symbol key', { o: { [Symbol('k')]: 1 } }, '/o'],
    ['an object with a non-enumerable property', { o: Object.defineProperty({}, 'hidden', { value: 1 }) }, '/o'],
    ['an object with a non-enumerable toJSON', Object.defineProperty({ a: 1 }, 'toJSON', { value: () => ({ a: 2 }) }), ''],
  ];
  for (const [name, value, path] of unsupported) {
    it(`unsupported_type: ${name}`, () => {
      expect(rejectionOf(value)).toEqual({ code: 'unsupported_type', path });
    });
  }

  it('unsupported_type: a getter or Proxy that throws while being read', () => {
    const throwing = {
      get boom() {
        throw new Error('nope');
      },
    };
    expect(rejectionOf({ a: throwing })).toEqual({ code: 'unsupported_type', path: '/a' });
    const proxy = new Proxy({}, { ownKeys: () => { throw new Error('trap'); } });
    expect(rejectionOf({ p: proxy }).code).toBe('unsupported_type');
  });

  it('cycle: direct, through arrays, and indirect', () => {
    const self: Record<string, unknown> = { a: 1 };
    self.self = self;
    expect(rejectionOf(self)).toEqual({ code: 'cycle', path: '/self' });
    const list: unknown[] = [1];
    list.push({ back: list });
    expect(rejectionOf({ list })).toEqual({ code: 'cycle', path: '/list/1/back' });
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = { a };
    a.b = b;
    expect(rejectionOf([a]).code).toBe('cycle');
  });

  it('too_deep: 100,000 nested arrays fail at the first level past the limit, without a RangeError', () => {
    let value: unknown = 0;
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(rejectionOf(value)).toEqual({ code: 'too_deep', path: '/0'.repeat(64) });
    expect(rejectionOf({ a: { b: [1] } }, { maxDepth: 2 })).toEqual({ code: 'too_deep', path: '/a/b' });
  });

  it('too_large: long strings, huge arrays, and exponentially shared values stop early', () => {
    expect(rejectionOf({ s: 'x'.repeat(100) }, { maxBytes: 100 })).toEqual({ code: 'too_large', path: '/s' });
    expect(rejectionOf({ big: new Array(2_000_000).fill(0) }).code).toBe('too_large');
    let bomb: unknown = 'payload';
    for (let i = 0; i < 60; i++) bomb = [bomb, bomb];
    expect(rejectionOf({ bomb }).code).toBe('too_large');
  });

  it('too_large: the work on an exponentially shared value is bounded by the size limit, not by its 2^60 leaves', () => {
    // Each level counts the elements read from it: every element the walk visits is read once.
    let visited = 0;
    const counting: ProxyHandler<unknown[]> = {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) visited += 1;
        return Reflect.get(target, key, receiver);
      },
    };
    let bomb: unknown = 'payload';
    for (let i = 0; i < 60; i++) bomb = new Proxy([bomb, bomb], counting);
    const maxBytes = 10_000;
    expect(rejectionOf({ bomb }, { maxBytes }).code).toBe('too_large');
    // Each element read adds at least two bytes to the size counted so far, and a value is read by
    // at most two passes (the quick copy, then the full walk): so at most maxBytes reads.
    expect(visited).toBeGreaterThan(0);
    expect(visited).toBeLessThanOrEqual(maxBytes);
  });

  it('rejects nonsensical limits as a programming error', () => {
    expect(() => validateJsonValue({}, { maxDepth: -1 })).toThrow(TypeError);
  });
});
