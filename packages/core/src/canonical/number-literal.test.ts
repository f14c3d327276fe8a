import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkNumberLiteral, toDecimal } from './number-literal.ts';

const check = (raw: string) => checkNumberLiteral(raw, Number(raw));

describe('toDecimal', () => {
  it('normalizes digits and exponent', () => {
    expect(toDecimal('10')).toEqual({ negative: false, digits: '1', exponent: 1 });
    expect(toDecimal('10.0')).toEqual({ negative: false, digits: '1', exponent: 1 });
    expect(toDecimal('1e1')).toEqual({ negative: false, digits: '1', exponent: 1 });
    expect(toDecimal('-0.00120e+3')).toEqual({ negative: true, digits: '12', exponent: -1 });
    expect(toDecimal('1e+21')).toEqual({ negative: false, digits: '1', exponent: 21 });
    expect(toDecimal('0.000')).toEqual({ negative: false, digits: '', exponent: 0 });
    expect(toDecimal('abc')).toBeUndefined();
    expect(toDecimal('-')).toBeUndefined();
  });
});

describe('checkNumberLiteral', () => {
  it('accepts exact literals in any spelling', () => {
    for (const raw of ['0', '-0', '-0.0', '0e-5', '10', '10.000', '1e1', '1E1', '0.1', '100e-3', '1.5e-7', '5e-324', '-2.2250738585072014e-308', '9007199254740991', '123456789012345', '0.000001', '1e-7']) {
      expect(check(raw), raw).toBeUndefined();
    }
  });

  it('calls integer-valued literals beyond ±(2^53−1) unsafe, whatever their spelling', () => {
    for (const raw of ['9007199254740992', '-9007199254740993', '1e16', '1.5e300', '1.7976931348623157e308', '1e999999999999999999999', '9007199254740992.000']) {
      expect(check(raw), raw).toBe('unsafe_integer');
    }
  });

  it('calls other literals that do not survive as written lossy', () => {
    for (const raw of ['1.00000000000000001', '0.1000000000000000055511151231257827', '1e-999999999999', '2.4703282292062327e-324', `1.${'0'.repeat(400)}1e400`]) {
      expect(check(raw), raw).toBe('lossy_number');
    }
  });

  it('accepts the shortest form of any finite double and its re-spellings (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 0, max: 30 }), (d, zeros) => {
        const want = Number.isInteger(d) && !Number.isSafeInteger(d) ? 'unsafe_integer' : undefined;
        const shortest = toDecimal(String(d))!;
        const sign = shortest.negative ? '-' : '';
        // Same value, respelled: extra trailing zeros, exponent adjusted; and with a fraction point.
        const respelled = `${sign}${shortest.digits || '0'}${'0'.repeat(zeros)}e${shortest.exponent - zeros}`;
        const withPoint = `${sign}0.${shortest.digits || '0'}e${shortest.exponent + shortest.digits.length}`;
        expect(checkNumberLiteral(String(d), d)).toBe(want);
        expect(check(respelled)).toBe(want);
        expect(check(withPoint)).toBe(want);
      }),
      { numRuns: 10_000 },
    );
  });

  it('rejects a literal with one more significant digit than any double carries (property)', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => d !== 0), fc.integer({ min: 1, max: 9 }), (d, extra) => {
        const { negative, digits, exponent } = toDecimal(String(d))!;
        // 25 significant digits: never the shortest form of a double (at most 17).
        const padded = `${digits}${'0'.repeat(24 - digits.length)}${extra}`;
        const shift = padded.length - digits.length;
        const raw = `${negative ? '-' : ''}${padded}e${exponent - shift}`;
        const integerValued = exponent - shift >= 0;
        expect(check(raw)).toBe(integerValued ? 'unsafe_integer' : 'lossy_number');
      }),
      { numRuns: 10_000 },
    );
  });
});
