import { describe, expect, it } from 'vitest';
import { isUtf8JsonContentType } from './json-content-type.ts';

describe('isUtf8JsonContentType', () => {
  it('accepts JSON with no charset or with UTF-8, however spelled', () => {
    for (const header of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; foo=bar']) {
      expect(isUtf8JsonContentType(header), header).toBe(true);
    }
  });

  it('refuses any other charset, a charset it cannot read, and anything that is not JSON', () => {
    const refused = [
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset=utf-8; charset=utf-16',
      'application/json; charset',
      'application/json; charset="utf-8;"',
      'text/plain',
      'application/jsonx',
      '',
      undefined,
    ];
    for (const header of refused) expect(isUtf8JsonContentType(header), String(header)).toBe(false);
  });
});
