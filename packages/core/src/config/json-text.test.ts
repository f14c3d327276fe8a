import { describe, expect, it } from 'vitest';
import { parseStrictJsonText } from './json-text.ts';

describe('parseStrictJsonText', () => {
  it('parses valid JSON', () => {
    expect(parseStrictJsonText('{"a":[1,{"b":"x,\\"}{"}],"c":null}')).toEqual({
      ok: true,
      value: { a: [1, { b: 'x,"}{' }], c: null },
    });
  });

  it('reports syntax errors', () => {
    const r = parseStrictJsonText('{"a":');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems[0]).toMatch(/^\(json\): /);
  });

  it('rejects duplicate keys with their path, including escaped spellings', () => {
    const text = '{"version":1,"rules":[{"tool":"a","verdict":"allow"},{"tool":"b","verdict":"allow","verdict":"deny"}]}';
    expect(parseStrictJsonText(text)).toEqual({ ok: false, problems: ['rules[1].verdict: duplicate key (line 1, column 84)'] });
    expect(parseStrictJsonText('{"a":1,"\\u0061":2}')).toEqual({ ok: false, problems: ['a: duplicate key (line 1, column 8)'] });
    expect(parseStrictJsonText('{"x":{"a":1},"y":{"a":1},"x":2}')).toEqual({ ok: false, problems: ['x: duplicate key (line 1, column 26)'] });
  });

  it('does not confuse values or keys in sibling objects with duplicates', () => {
    expect(parseStrictJsonText('[{"a":"a"},{"a":"a"}]').ok).toBe(true);
    expect(parseStrictJsonText('{"a":{"a":{"a":1}}}').ok).toBe(true);
    expect(parseStrictJsonText('{"a":"\\\\","b":"\\\\\\""}').ok).toBe(true);
  });
});
