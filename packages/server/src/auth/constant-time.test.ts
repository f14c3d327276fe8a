import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestSecret, findSecret, secretsEqual } from './constant-time.ts';

describe('constant-time secret comparison', () => {
  it('compares by value, whatever the lengths', () => {
    expect(secretsEqual('token-a', 'token-a')).toBe(true);
    expect(secretsEqual('token-a', 'token-b')).toBe(false);
    expect(secretsEqual('token-a', 'token-a-longer')).toBe(false);
    expect(secretsEqual('', 'x')).toBe(false);
  });

  it('finds the matching entry or -1', () => {
    const digests = ['one', 'two', 'three'].map(digestSecret);
    expect(findSecret('two', digests)).toBe(1);
    expect(findSecret('three', digests)).toBe(2);
    expect(findSecret('four', digests)).toBe(-1);
    expect(findSecret('one', [])).toBe(-1);
  });

  it('digests the UTF-8 bytes with SHA-256 (hex form, fixed length)', () => {
    for (const secret of ['plain-ascii', 'ünïcødé-tøken', '\u{1F511}key', '', 'x'.repeat(5000)]) {
      const digest = digestSecret(secret);
      expect(digest).toHaveLength(64);
      expect(digest.toString('latin1')).toBe(createHash('sha256').update(secret, 'utf8').digest('hex'));
    }
    expect(findSecret('ünïcødé-tøken', ['ünïcødé-tøken'].map(digestSecret))).toBe(0);
    expect(findSecret('unicode-token', ['ünïcødé-tøken'].map(digestSecret))).toBe(-1);
  });
});
