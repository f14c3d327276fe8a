import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildJsonValue } from './build-json-value.ts';
import { canonicalizeArguments } from './canonicalize-arguments.ts';
import { parseStrictJson } from './parse-strict.ts';

// V8 (Node 24.21) JSON.parse compares an escaped key's raw characters, cut to the
// decoded length, with the key of the map transition it expects; an earlier object
// with the same preceding keys plants that transition. A unique first key makes the
// planted transition the only one, so the bug is hit deterministically.
let unique = 0;
const prefix = (): string => `escaped-key-regression-${process.pid}-${Date.now()}-${unique++}`;

describe('escaped keys are named as written, whatever the process parsed before', () => {
  it('"\\"" stays a quote after an object with the key "\\\\" (the properties.test counterexample)', () => {
    const k = prefix();
    JSON.parse(`{"${k}":0,"\\\\":null}`); // plants the transition  k -> "\"
    const text = `{"${k}":0,"\\"":null}`;
    const result = canonicalizeArguments(text);
    expect(Object.keys(result.value as object)).toEqual([k, '"']);
    expect(result.canonical).toBe(`{"\\"":null,"${k}":0}`);
    expect(result.digest).toBe(canonicalizeArguments({ [k]: 0, '"': null }).digest);
  });

  it('a \\u escape is not read as its raw prefix ("\\u0041xyz" after a key "\\u00")', () => {
    const k = prefix();
    JSON.parse(`{"${k}":0,"\\\\u00":1}`); // key is the 4 characters \u00
    expect(parseStrictJson(`{"${k}":0,"\\u0041xyz":1}`)).toEqual({ [k]: 0, Axyz: 1 });
  });

  it('buildJsonValue agrees with JSON.parse on JSON.stringify output (fresh keys, no planting)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(buildJsonValue(text)).toStrictEqual(JSON.parse(text, (_k, v: unknown) => (Object.is(v, -0) ? 0 : v)));
        expect(buildJsonValue(JSON.stringify(value, null, 2))).toStrictEqual(buildJsonValue(text));
      }),
      { numRuns: 2_000 },
    );
  });
});
