import { describe, expect, it } from 'vitest';
import { parsePolicyJson } from './json-text.ts';

describe('parsePolicyJson', () => {
  it('parses valid JSON', () => {
    expect(parsePolicyJson('{"a":[1,{"b":"x,\\"}{"}],"c":null}')).toEqual({
      ok: true,
      value: { a: [1, { b: 'x,"}{' }], c: null },
    });
  });

  it('reports syntax errors', () => {
    const r = parsePolicyJson('{"a":');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatch(/^\(json\): /);
  });

  it('rejects duplicate keys with their path, including escaped spellings', () => {
    const text = '{"version":1,"rules":[{"tool":"a","verdict":"allow"},{"tool":"b","verdict":"allow","verdict":"deny"}]}';
    expect(parsePolicyJson(text)).toEqual({ ok: false, problems: ['rules[1].verdict: duplicate key'] });
    expect(parsePolicyJson('{"a":1,"\\u0061":2}')).toEqual({ ok: false, problems: ['a: duplicate key'] });
    expect(parsePolicyJson('{"x":{"a":1},"y":{"a":1},"x":2}')).toEqual({ ok: false, problems: ['x: duplicate key'] });
  });

  it('does not confuse values or keys in sibling objects with duplicates', () => {
    expect(parsePolicyJson('[{"a":"a"},{"a":"a"}]').ok).toBe(true);
    expect(parsePolicyJson('{"a":{"a":{"a":1}}}').ok).toBe(true);
    expect(parsePolicyJson('{"a":"\\\\","b":"\\\\\\""}').ok).toBe(true);
  });
});
