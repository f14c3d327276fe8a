import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeWordVectors, encodeWordVectors, loadWordVectors, WORD_VECTORS_FILE, WordVectorsError } from './word-vectors.ts';

describe('the vendored word vectors', () => {
  const vectors = loadWordVectors();

  it('load from the committed file with the derived shape', () => {
    expect(vectors.dimensions).toBe(100);
    expect(vectors.count).toBe(54_510);
    expect(vectors.bytes).toBeLessThan(7 * 1024 * 1024);
    // Most frequent first: common words have low rows; a dictionary word past the top 40,000 is kept.
    expect(vectors.indexOf('the')).toBe(0);
    expect(vectors.indexOf('invoice')).toBeGreaterThan(0);
    expect(vectors.indexOf('Jazz')).toBe(-1);
    expect(vectors.indexOf('zzqx')).toBe(-1);
  });

  it('place related words closer than unrelated ones, and each word is unit length', () => {
    const sim = (a: string, b: string) => vectors.similarity(a, b) ?? Number.NaN;
    expect(sim('jazz', 'music')).toBeGreaterThan(sim('jazz', 'invoice'));
    expect(sim('jazz', 'music')).toBeGreaterThan(0.6);
    expect(sim('customers', 'users')).toBeGreaterThan(sim('customers', 'weather'));
    expect(sim('music', 'music')).toBeCloseTo(1, 5);
    expect(vectors.similarity('jazz', 'zzqx')).toBeUndefined();
  });

  it('a damaged file is a typed error, not a crash or a wrong answer', () => {
    const good = readFileSync(WORD_VECTORS_FILE);
    const codeOf = (bytes: Uint8Array) => {
      try {
        decodeWordVectors(bytes);
        return 'ok';
      } catch (e) {
        return e instanceof WordVectorsError ? e.code : 'untyped';
      }
    };
    expect(codeOf(good)).toBe('ok');
    expect(codeOf(good.subarray(0, good.length - 1))).toBe('truncated');
    expect(codeOf(new Uint8Array(3))).toBe('bad_magic');
    const otherVersion = Buffer.from(good);
    otherVersion.writeUInt32LE(2, 4);
    expect(codeOf(otherVersion)).toBe('bad_version');
    const lyingCount = Buffer.from(good);
    lyingCount.writeUInt32LE(3, 8);
    expect(codeOf(lyingCount)).toBe('truncated');
  });

  it('round-trips through the encoder at any buffer offset', () => {
    const rows = [Float64Array.from([3, 4, 0]), Float64Array.from([0, -2, 0])];
    const bytes = encodeWordVectors(['ab', 'cd'], rows, 3);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    for (const v of [decodeWordVectors(bytes), decodeWordVectors(shifted.subarray(1))]) {
      expect(v.similarity('ab', 'ab')).toBeCloseTo(1, 5);
      expect(v.similarity('ab', 'cd')).toBeCloseTo(-0.8, 2);
    }
  });
});
