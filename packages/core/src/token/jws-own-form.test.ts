import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../canonical/parse-strict.ts';
import { MAX_TOKEN_LENGTH } from './format.ts';
import { readPayload } from './jws.ts';

// readPayload reads text in our minters' own form with JSON.parse and a round-trip check;
// everything else goes to the strict parser. Both must give the same answer, always.
const enc = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

function strictAnswer(text: string): { ok: true; payload: unknown } | { ok: false } {
  try {
    const value = parseStrictJson(text, { maxBytes: MAX_TOKEN_LENGTH, maxDepth: 4 });
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ok: true, payload: value } : { ok: false };
  } catch {
    return { ok: false };
  }
}

function agrees(text: string): void {
  const read = readPayload(enc(text));
  const strict = strictAnswer(text);
  expect(read.ok, text).toBe(strict.ok);
  if (read.ok && strict.ok) expect(read.payload).toEqual(strict.payload);
}

describe('token payloads: the fast reading gives the strict parser answer', () => {
  it('on texts JSON.stringify can write but the strict rules refuse', () => {
    for (const text of [
      '{"a":1,"a":2}', // duplicate member: the round trip drops one
      '{"a":"x","b":["p","p"],"a":"y"}',
      '{"n":9007199254740992}', // 2^53 round-trips but is not a safe integer
      '{"n":-9007199254740992}',
      '{"n":[9007199254740992]}',
      '{"n":-0}',
      '{"n":1e3}',
      '{"n":0.1000000000000000055511151231257827}',
      '{"s":"\\ud800"}', // escaped lone surrogate
      '{"__proto__":1}',
      '{"constructor":"x"}',
      '{"prototype":null}',
      '{"a":[[[[[1]]]]]}', // deeper than the limit
      '{"a":[[1]]}',
      '{"a":{"b":1}}',
      '{"a":1} ',
      '{ "a":1}',
      '[1]',
      '"s"',
      '{}',
      '{"a":"b"}',
      '{"apr":["alice","bob"],"exp":1781,"def":null,"ok":true,"x":1.5}',
    ]) {
      agrees(text);
    }
  });

  it('on random flat claim-like objects, as written and with one member repeated', () => {
    const scalar = fc.oneof(fc.string(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.constant(2 ** 53));
    const member = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }));
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 8 }), member, { maxKeys: 8 }), (claims) => {
        const text = JSON.stringify(claims);
        agrees(text);
        const first = Object.keys(claims)[0];
        if (first !== undefined) agrees(`${text.slice(0, -1)},${JSON.stringify(first)}:1}`);
      }),
      { numRuns: 1000 },
    );
  });
});
