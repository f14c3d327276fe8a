import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitJws } from './jws.ts';

// splitJws checks the compact form in one scan and the signature's canonical base64url by
// its length and last character. Both must give the answer of the plain reading they
// replaced: three non-empty base64url parts, and a signature equal to the re-encoding of
// its decoded bytes (so one signature has exactly one textual form).
const TYP = 'countersign-approval+jwt';
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: TYP, kid: 'k1' })).toString('base64url');
const PAYLOAD = Buffer.from('{"v":2}').toString('base64url');
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function referenceAnswer(token: string): 'ok' | 'malformed' {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return 'malformed';
  const s = parts[2]!;
  return Buffer.from(s, 'base64url').toString('base64url') === s ? 'ok' : 'malformed';
}

const answer = (token: string) => {
  const split = splitJws(token, TYP);
  return split.ok ? 'ok' : split.reason;
};

describe('JWS compact form: the one-scan reading gives the plain reading answer', () => {
  it('refuses a signature with extra trailing bits (a second spelling of the same bytes)', () => {
    const signature = Buffer.alloc(32, 7).toString('base64url'); // 43 characters: 4 unused bits
    const last = ALPHABET.indexOf(signature.at(-1)!);
    const respelled = `${signature.slice(0, -1)}${ALPHABET[last | 1]}`;
    expect(Buffer.from(respelled, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(answer(`${HEADER}.${PAYLOAD}.${signature}`)).toBe('ok');
    expect(answer(`${HEADER}.${PAYLOAD}.${respelled}`)).toBe('malformed');
  });

  it('refuses padding, the standard alphabet, empty or extra parts, and a newline after the signature', () => {
    const signature = Buffer.alloc(32, 7).toString('base64url');
    for (const token of [
      `${HEADER}.${PAYLOAD}.${signature}=`,
      `${HEADER}.${PAYLOAD}+.${signature}`,
      `${HEADER}.${PAYLOAD}/.${signature}`,
      `${HEADER}..${signature}`,
      `${HEADER}.${PAYLOAD}.`,
      `.${PAYLOAD}.${signature}`,
      `${HEADER}.${PAYLOAD}.${signature}.x`,
      `${HEADER}.${PAYLOAD}`,
      `${HEADER}.${PAYLOAD}.${signature}\n`,
      `${HEADER}.${PAYLOAD} .${signature}`,
    ]) {
      expect(answer(token), JSON.stringify(token)).toBe('malformed');
    }
  });

  it('agrees with the plain reading on any signature text and any mix of dots', () => {
    const char = fc.constantFrom(...`${ALPHABET}.=+/ `.split(''));
    fc.assert(
      fc.property(fc.array(char, { minLength: 1, maxLength: 90 }), (chars) => {
        const tail = chars.join('');
        const token = `${HEADER}.${PAYLOAD}.${tail}`;
        expect(answer(token)).toBe(referenceAnswer(token));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9_-]{1,90}$/), (signature) => {
        const token = `${HEADER}.${PAYLOAD}.${signature}`;
        expect(answer(token)).toBe(referenceAnswer(token));
      }),
      { numRuns: 3000 },
    );
  });

  it('gives the same answer when the caller names the payload it expects (only header and signature scanned then)', () => {
    const char = fc.constantFrom(...`${ALPHABET}.=+/ `.split(''));
    const known = (token: string) => {
      const split = splitJws(token, TYP, PAYLOAD);
      return split.ok ? 'ok' : split.reason;
    };
    fc.assert(
      fc.property(fc.array(char, { maxLength: 30 }), fc.array(char, { minLength: 1, maxLength: 60 }), fc.boolean(), (head, tail, ownHeader) => {
        const token = `${ownHeader ? HEADER : head.join('')}.${PAYLOAD}.${tail.join('')}`;
        expect(known(token), token).toBe(answer(token));
        const other = `${HEADER}.${PAYLOAD}${head.join('')}.${tail.join('')}`;
        expect(known(other), other).toBe(answer(other));
      }),
      { numRuns: 3000 },
    );
  });

  it('hands back the exact signing input and payload segment', () => {
    const signature = Buffer.alloc(32, 9).toString('base64url');
    const split = splitJws(`${HEADER}.${PAYLOAD}.${signature}`, TYP);
    expect(split.ok && split.parts).toMatchObject({ signingInput: `${HEADER}.${PAYLOAD}`, payloadSegment: PAYLOAD });
    expect(split.ok && split.parts.signature).toEqual(Buffer.alloc(32, 9));
  });
});
