import { readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { canonicalizeArguments } from './canonicalize-arguments.ts';
import { CanonicalizationError } from './errors.ts';
import { checkNumberLiteral } from './number-literal.ts';
import { parseStrictJson } from './parse-strict.ts';
import { serializeCanonical } from './serialize.ts';

// Vendored beside the package (packages/core/test-vectors/jcs, see its SOURCE.md), so a plain clone runs it.
const jcsDir = new URL('../../test-vectors/jcs/', import.meta.url);

const read = (relative: string): Buffer => readFileSync(new URL(relative, jcsDir));

/** What strict intake says about each upstream input (the serializer vectors are looser). */
const strictVerdict: Record<string, 'accept' | { code: string; path: string }> = {
  'arrays.json': 'accept',
  'french.json': 'accept',
  'structures.json': 'accept', // 56.0 is exact
  'unicode.json': 'accept',
  'values.json': { code: 'lossy_number', path: '/numbers/0' }, // 333333333.33333329 reads as …3333333
  'weird.json': 'accept',
};

const inputNames = readdirSync(new URL('input/', jcsDir)).filter((name) => name.endsWith('.json'));

describe('RFC 8785 reference vectors', () => {
  it('finds all six upstream inputs', () => {
    expect(inputNames.sort()).toEqual(Object.keys(strictVerdict).sort());
  });

  for (const name of inputNames) {
    const text = read(`input/${name}`).toString('utf8');
    const expected = read(`output/${name}`);

    it(`${name}: serializeCanonical(JSON.parse(input)) is exactly output/${name}`, () => {
      const actual = Buffer.from(serializeCanonical(JSON.parse(text)), 'utf8');
      expect(actual.equals(expected)).toBe(true);
    });

    it(`${name}: output/ agrees with outhex/`, () => {
      const hex = read(`outhex/${name.replace(/\.json$/, '.txt')}`)
        .toString('utf8')
        .trim()
        .split(/\s+/);
      expect(Buffer.from(hex.join(''), 'hex').equals(expected)).toBe(true);
    });

    const verdict = strictVerdict[name];
    if (verdict === 'accept') {
      it(`${name}: strict intake accepts it and produces the same bytes`, () => {
        const { canonical } = canonicalizeArguments(text, { requireObject: false });
        expect(Buffer.from(canonical, 'utf8').equals(expected)).toBe(true);
      });
    } else if (verdict !== undefined) {
      it(`${name}: strict intake rejects it with ${verdict.code} at ${verdict.path}`, () => {
        const error = catchError(() => parseStrictJson(text));
        expect(error).toBeInstanceOf(CanonicalizationError);
        expect(error).toMatchObject({ code: verdict.code, path: verdict.path });
      });
    }
  }

  it('values.json without its first number still fails strictly, on 1E30 (unsafe_integer)', () => {
    const text = read('input/values.json').toString('utf8').replace('333333333.33333329, ', '');
    expect(catchError(() => parseStrictJson(text))).toMatchObject({ code: 'unsafe_integer', path: '/numbers/0' });
  });
});

describe('ES6 number serialization, 100,000 vectors', () => {
  const lines = gunzipSync(read('es6-numbers-100k.txt.gz')).toString('utf8').split('\n').filter((line) => line !== '');
  const view = new DataView(new ArrayBuffer(8));
  const decode = (hex: string): number => {
    view.setBigUint64(0, BigInt(`0x${hex}`));
    return view.getFloat64(0);
  };

  it('has 100,000 lines', () => {
    expect(lines).toHaveLength(100_000);
  });

  it('serializeCanonical writes every double exactly as expected', () => {
    const mismatches: string[] = [];
    for (const line of lines) {
      const comma = line.indexOf(',');
      const value = decode(line.slice(0, comma));
      const expected = line.slice(comma + 1);
      if (serializeCanonical(value) !== expected) mismatches.push(line);
    }
    expect(mismatches).toEqual([]);
  });

  it('strict number intake takes every expected literal as exact (only big integers are refused)', () => {
    const wrong: string[] = [];
    for (const line of lines) {
      const expected = line.slice(line.indexOf(',') + 1);
      const parsed = Number(expected);
      const want = Number.isInteger(parsed) && !Number.isSafeInteger(parsed) ? 'unsafe_integer' : undefined;
      if (checkNumberLiteral(expected, parsed) !== want) wrong.push(line);
    }
    expect(wrong).toEqual([]);
  });
});

function catchError(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
