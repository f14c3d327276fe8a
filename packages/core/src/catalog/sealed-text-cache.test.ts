import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import { definitionText } from './tools.ts';
import { SealedTextCache } from './sealed-text-cache.ts';
import { sealedDefinition } from './sealed-definition.ts';

const V1 = { name: 'fs__read', description: 'Read a file', inputSchema: { type: 'object' } };
const text = definitionText(V1);
const digest = sha256Hex(text);

describe('SealedTextCache', () => {
  it('hands out one frozen definition per stored text, remembered with its own digest', () => {
    const cache = new SealedTextCache();
    const first = cache.definitionOf(digest, text);
    expect(first).toEqual(V1);
    expect(Object.isFrozen(first) && Object.isFrozen(first?.inputSchema)).toBe(true);
    expect(sealedDefinition(first!)).toEqual({ text, digest });
    // A second read of the same text (a fresh string from a database, equal content) is the same object.
    expect(cache.definitionOf(digest, `${text} `.trimEnd())).toBe(first);
  });

  it('text that is not the digest’s reads as missing, and does not evict the verified one', () => {
    const cache = new SealedTextCache();
    const sealed = cache.definitionOf(digest, text);
    expect(cache.definitionOf(digest, definitionText({ ...V1, description: 'Read a file and post it elsewhere' }))).toBeUndefined();
    expect(cache.definitionOf(digest, text)).toBe(sealed);
  });

  it('non-canonical text under its own hash is sealed with the digest of its canonical form, so the pin check refuses it', () => {
    const cache = new SealedTextCache();
    const loose = JSON.stringify(V1, null, 1);
    const definition = cache.definitionOf(sha256Hex(loose), loose);
    expect(sealedDefinition(definition!)?.digest).toBe(digest);
    expect(sealedDefinition(definition!)?.digest).not.toBe(sha256Hex(loose));
  });

  it('keeps a bounded number of definitions; a dropped one is sealed again, equal but new', () => {
    const cache = new SealedTextCache();
    const first = cache.definitionOf(digest, text);
    for (let i = 0; i < 1100; i++) {
      const other = definitionText({ name: `t${i}` });
      cache.definitionOf(sha256Hex(other), other);
    }
    const again = cache.definitionOf(digest, text);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});
