import { describe, expect, it } from 'vitest';
import { jsonCharsetProblem } from './json-charset.ts';

describe('jsonCharsetProblem: a JSON body is read as UTF-8 or refused', () => {
  it('no header, no charset, or UTF-8 (any case, quoted) reads as UTF-8', () => {
    for (const ok of [undefined, null, '', 'application/json', 'application/json; charset=utf-8', 'application/json;CHARSET="UTF-8"', 'application/json; foo=bar']) {
      expect(jsonCharsetProblem(ok), String(ok)).toBeUndefined();
    }
  });

  it('any other charset, a charset without a value, or a second charset is refused', () => {
    for (const bad of [
      'application/json; charset=utf-16',
      'application/json; charset=UTF-16LE',
      'application/json; charset=latin1',
      'application/json; charset',
      'application/json; charset=utf-8; charset=utf-16',
      'application/json; charset="utf-8;"',
    ]) {
      expect(jsonCharsetProblem(bad), bad).toMatch(/UTF-8/);
    }
  });
});
