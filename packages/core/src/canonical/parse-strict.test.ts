import { describe, expect, it } from 'vitest';
import { CanonicalizationError } from './errors.ts';
import { rejection } from './rejection.test-helper.ts';
import { parseStrictJson } from './parse-strict.ts';

const rejectCode = (text: string, limits?: { maxDepth?: number; maxBytes?: number }): string =>
  rejection(() => parseStrictJson(text, limits)).code;

describe('parseStrictJson: accepts strict JSON', () => {
  it('parses objects, arrays and scalars', () => {
    expect(parseStrictJson('{"a":[1,"x",true,false,null,{"b":{}}]}')).toEqual({ a: [1, 'x', true, false, null, { b: {} }] });
    expect(parseStrictJson('"top"')).toBe('top');
    expect(parseStrictJson(' \t\r\n 42 \n')).toBe(42);
  });

  it('builds ordinary objects (Object.prototype) and does not touch the prototype chain', () => {
    const value = parseStrictJson('{"toString":"x","hasOwnProperty":1,"__proto":2,"a":"__proto__","b":["constructor"]}');
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value).toEqual({ toString: 'x', hasOwnProperty: 1, __proto: 2, a: '__proto__', b: ['constructor'] });
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });

  it('accepts numbers that are exact as written', () => {
    expect(parseStrictJson('[10,10.0,1e1,1E+1,100e-1,0.1,1e-7,5e-324,9007199254740991,-9007199254740991,9.007199254740991e15,56.0,2.5e-3]')).toEqual([
      10, 10, 10, 10, 10, 0.1, 1e-7, 5e-324, 9007199254740991, -9007199254740991, 9007199254740991, 56, 0.0025,
    ]);
  });

  it('accepts -0 and returns it as 0, which is what JCS writes', () => {
    const value = parseStrictJson('[-0,-0.0,{"a":-0e5},[[-0]]]') as [number, number, { a: number }, [[number]]];
    expect(Object.is(value[0], 0)).toBe(true);
    expect(Object.is(value[1], 0)).toBe(true);
    expect(Object.is(value[2].a, 0)).toBe(true);
    expect(Object.is(value[3][0][0], 0)).toBe(true);
    expect(Object.is(parseStrictJson('-0'), 0)).toBe(true);
  });

  it('accepts escaped and raw surrogate pairs and escaped backslashes before "u"', () => {
    expect(parseStrictJson('["\\ud83d\\ude02","😂","\\\\ud800",{"\\ud83d\\ude02":1}]')).toEqual(['😂', '😂', '\\ud800', { '😂': 1 }]);
  });

  it('does not confuse equal keys in different objects with duplicates', () => {
    expect(parseStrictJson('[{"k":1},{"k":2},{"k":{"k":{"k":3}}}]')).toEqual([{ k: 1 }, { k: 2 }, { k: { k: { k: 3 } } }]);
    expect(parseStrictJson('{"a":1,"A":2,"a ":3}')).toEqual({ a: 1, A: 2, 'a ': 3 });
  });

  it('accepts exactly maxDepth levels', () => {
    expect(() => parseStrictJson(`${'['.repeat(64)}${']'.repeat(64)}`)).not.toThrow();
    expect(() => parseStrictJson('{"a":{"b":[1]}}', { maxDepth: 3 })).not.toThrow();
  });
});

describe('parseStrictJson: invalid_json', () => {
  const malformed: Array<[string, string]> = [
    ['empty', ''],
    ['whitespace only', '  \n'],
    ['truncated object', '{"a":1'],
    ['truncated string', '{"a":"b'],
    ['truncated after colon', '{"a":'],
    ['trailing comma in object', '{"a":1,}'],
    ['trailing comma in array', '[1,2,]'],
    ['empty element', '[1,,2]'],
    ['line comment', '// note\n{"a":1}'],
    ['block comment', '{"a":1 /* note */}'],
    ['single quotes', "{'a':1}"],
    ['unquoted key', '{a:1}'],
    ['missing colon', '{"a" 1}'],
    ['trailing garbage', '{"a":1} x'],
    ['two documents', '{"a":1}{"b":2}'],
    ['leading zero', '[01]'],
    ['negative leading zero', '[-01]'],
    ['bare dot', '[1.]'],
    ['leading dot', '[.5]'],
    ['plus sign', '[+1]'],
    ['hex', '[0x10]'],
    ['dangling exponent', '[1e]'],
    ['lone minus', '[-]'],
    ['NaN literal', '[NaN]'],
    ['Infinity literal', '[Infinity]'],
    ['-Infinity literal', '[-Infinity]'],
    ['capitalized literal', '[True]'],
    ['undefined literal', '[undefined]'],
    ['raw tab in string', '["a\tb"]'],
    ['raw newline in string', '["a\nb"]'],
    ['raw NUL in string', '["a\u0000b"]'],
    ['invalid escape', '["\\x41"]'],
    ['short unicode escape', '["\\u12"]'],
    ['byte order mark', '\ufeff{"a":1}'],
    ['non-breaking space as whitespace', '\u00a0{"a":1}'],
    ['unbalanced close', '{"a":1}}'],
    ['mismatched brackets', '{"a":[1}'],
  ];
  for (const [name, text] of malformed) {
    it(`rejects ${name}`, () => {
      expect(rejectCode(text)).toBe('invalid_json');
    });
  }

  it('reports malformed text as invalid_json even when it also has a duplicate key', () => {
    expect(rejectCode('{"a":1,"a":2')).toBe('invalid_json');
    expect(rejectCode('{"a":1,"a":2,}')).toBe('invalid_json');
  });

  it('keeps the message short for huge input', () => {
    const text = `{"a":"${'x'.repeat(100_000)}",}`;
    try {
      parseStrictJson(text);
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message.length).toBeLessThan(300);
    }
  });
});

describe('parseStrictJson: duplicate_key', () => {
  it('rejects a repeated key and names it', () => {
    try {
      parseStrictJson('{"amount":1,"to":"x","amount":1000000}');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CanonicalizationError);
      expect(error).toMatchObject({ code: 'duplicate_key', path: '/amount' });
      expect((error as Error).message).toBe('duplicate key "amount" at /');
    }
  });

  it('rejects nested and in-array duplicates with their path', () => {
    expect(rejection(() => parseStrictJson('{"x":{"b":1,"b":2}}'))).toEqual({ code: 'duplicate_key', path: '/x/b' });
    expect(rejection(() => parseStrictJson('[{"k":1},{"k":2,"k":3}]'))).toEqual({ code: 'duplicate_key', path: '/1/k' });
  });

  it('rejects keys equal after escape decoding', () => {
    expect(rejection(() => parseStrictJson('{"a":1,"\\u0061":2}'))).toEqual({ code: 'duplicate_key', path: '/a' });
    expect(rejectCode('{"é":1,"\\u00e9":2}')).toBe('duplicate_key');
    expect(rejectCode('{"a/b":1,"a\\/b":2}')).toBe('duplicate_key');
    expect(rejectCode('{"😂":1,"\\ud83d\\ude02":2}')).toBe('duplicate_key');
  });

  it('escapes ~ and / in the path (RFC 6901)', () => {
    expect(rejection(() => parseStrictJson('{"a/b~c":{"k":1,"k":2}}')).path).toBe('/a~1b~0c/k');
  });

  it('truncates a huge duplicate key in the message', () => {
    const key = 'k'.repeat(10_000);
    try {
      parseStrictJson(`{"${key}":1,"${key}":2}`);
      expect.unreachable();
    } catch (error) {
      expect((error as CanonicalizationError).code).toBe('duplicate_key');
      expect((error as Error).message.length).toBeLessThan(300);
    }
  });
});

describe('parseStrictJson: forbidden_key', () => {
  for (const key of ['__proto__', 'constructor', 'prototype']) {
    it(`rejects "${key}" at the top level and nested`, () => {
      expect(rejection(() => parseStrictJson(`{"${key}":{"polluted":true}}`))).toEqual({ code: 'forbidden_key', path: `/${key}` });
      expect(rejection(() => parseStrictJson(`{"a":[{"${key}":1}]}`))).toEqual({ code: 'forbidden_key', path: `/a/0/${key}` });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it('rejects a forbidden key spelled with escapes', () => {
    expect(rejectCode('{"\\u005f_proto__":1}')).toBe('forbidden_key');
    expect(rejectCode('{"constr\\u0075ctor":1}')).toBe('forbidden_key');
  });
});

describe('parseStrictJson: unsafe_integer', () => {
  for (const literal of ['9007199254740992', '9007199254740993', '-9007199254740992', '12345678901234567890', '1e300', '1E300', '1e400', '-1e400', '1.5e20', '9.007199254740992e15']) {
    it(`rejects ${literal}`, () => {
      expect(rejection(() => parseStrictJson(`{"n":${literal}}`))).toEqual({ code: 'unsafe_integer', path: '/n' });
    });
  }
});

describe('parseStrictJson: lossy_number', () => {
  for (const literal of ['1.00000000000000001', '0.10000000000000001', '333333333.33333329', '1e-400', '4.9406564584124654e-324', '9007199254740990.5', '0.30000000000000000000001']) {
    it(`rejects ${literal}`, () => {
      expect(rejection(() => parseStrictJson(`[${literal}]`))).toEqual({ code: 'lossy_number', path: '/0' });
    });
  }
});

describe('parseStrictJson: lone_surrogate', () => {
  it('rejects escaped lone surrogates in values', () => {
    expect(rejection(() => parseStrictJson('["\\ud800"]'))).toEqual({ code: 'lone_surrogate', path: '/0' });
    expect(rejectCode('["\\uDC00"]')).toBe('lone_surrogate');
    expect(rejectCode('["ab\\ud83d"]')).toBe('lone_surrogate');
    expect(rejectCode('["\\ude02\\ud83d"]')).toBe('lone_surrogate');
    expect(rejectCode('"\\ud800x"')).toBe('lone_surrogate');
  });

  it('rejects escaped lone surrogates in keys', () => {
    expect(rejection(() => parseStrictJson('{"a":{"\\ud800":1}}'))).toEqual({ code: 'lone_surrogate', path: '/a/\ud800' });
  });

  it('rejects raw lone surrogates in the text (values and keys)', () => {
    expect(rejection(() => parseStrictJson('{"a":"x\ud800y"}'))).toEqual({ code: 'lone_surrogate', path: '/a' });
    expect(rejectCode('{"\udc00":1}')).toBe('lone_surrogate');
  });

  it('rejects a pair split between an escape and a raw code unit: the text itself is not well-formed', () => {
    expect(rejectCode('["\\ud83d\ude02"]')).toBe('lone_surrogate');
  });

  it('escapes the surrogate in the message', () => {
    try {
      parseStrictJson('{"\\ud800":1}');
      expect.unreachable();
    } catch (error) {
      expect((error as Error).message.isWellFormed()).toBe(true);
    }
  });
});

describe('parseStrictJson: too_deep', () => {
  it('rejects 100,000 unclosed [ at the first level past the limit, without a RangeError', () => {
    // The path names the 65th level: the scan stopped there instead of reading on.
    expect(rejection(() => parseStrictJson('['.repeat(100_000)))).toEqual({ code: 'too_deep', path: '/0'.repeat(64) });
  });

  it('rejects 100,000 closed nested arrays and objects', () => {
    expect(rejectCode(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBe('too_deep');
    expect(rejectCode(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`)).toBe('too_deep');
  });

  it('rejects one level past the limit and names where', () => {
    expect(rejection(() => parseStrictJson(`${'['.repeat(65)}${']'.repeat(65)}`)).code).toBe('too_deep');
    expect(rejection(() => parseStrictJson('{"a":{"b":[[1]]}}', { maxDepth: 3 }))).toEqual({ code: 'too_deep', path: '/a/b/0' });
  });

  it('checks depth before grammar', () => {
    expect(rejectCode('[[[x', { maxDepth: 2 })).toBe('too_deep');
  });
});

describe('parseStrictJson: too_large', () => {
  it('measures UTF-8 bytes, not UTF-16 code units', () => {
    expect(parseStrictJson('["éé"]', { maxBytes: 8 })).toEqual(['éé']);
    expect(rejectCode('["éé"]', { maxBytes: 7 })).toBe('too_large');
    expect(rejectCode('["😂"]', { maxBytes: 7 })).toBe('too_large');
    expect(parseStrictJson('["😂"]', { maxBytes: 8 })).toEqual(['😂']);
  });

  it('rejects text over 1 MiB by default, before parsing it', () => {
    const overLimit = `[${' '.repeat(1_048_576)}]`;
    expect(rejectCode(overLimit)).toBe('too_large');
    expect(rejectCode(`${'['.repeat(1_048_577)}`)).toBe('too_large');
    expect(parseStrictJson(`[${' '.repeat(1_048_574)}]`)).toEqual([]);
  });
});

describe('parseStrictJson: precedence and misuse', () => {
  it('reports the first problem in document order', () => {
    expect(rejectCode('{"a":1e400,"b":"\\ud800","a":1}')).toBe('unsafe_integer');
    expect(rejectCode('{"b":"\\ud800","a":1e400}')).toBe('lone_surrogate');
    expect(rejectCode('{"a":1,"a":2,"__proto__":3}')).toBe('duplicate_key');
  });

  it('rejects a non-string argument and nonsensical limits', () => {
    expect(rejectCode(42 as unknown as string)).toBe('unsupported_type');
    expect(() => parseStrictJson('{}', { maxDepth: 0 })).toThrow(TypeError);
    expect(() => parseStrictJson('{}', { maxBytes: Number.NaN })).toThrow(TypeError);
  });
});
