/** Why a number literal cannot be taken as written, or `undefined` if it can. */
export type NumberLiteralProblem = 'unsafe_integer' | 'lossy_number' | undefined;

/** A decimal value as `digits × 10^exponent`, digits without leading or trailing zeros ('' for zero). */
interface Decimal {
  negative: boolean;
  digits: string;
  exponent: number;
}

const SIMPLE_INTEGER = /^-?(?:0|[1-9][0-9]{0,14})$/;

/**
 * Checks a JSON number literal against the double it parses to (`parsed`, i.e.
 * `Number(raw)`). The literal is accepted only if the decimal value it writes is
 * exactly the value of the double's shortest round-trip form, which is what JCS
 * emits: otherwise the approver would read one number and the tool receive another.
 * `10`, `10.0`, `1e1`, `0.1` and `-0` pass; `1.00000000000000001` is lossy.
 * Integer-valued literals beyond ±(2^53−1) (`9007199254740993`, `1e300`) are
 * unsafe integers even when exact, because other languages' JSON readers round them.
 */
export function checkNumberLiteral(raw: string, parsed: number): NumberLiteralProblem {
  // Fast path for the common case: at most 15 digits is always a safe, exact integer.
  if (SIMPLE_INTEGER.test(raw)) return undefined;
  // Next most common: the literal is already the shortest form (`0.25`, `1e-7`).
  if (String(parsed) === raw) return Number.isInteger(parsed) && !Number.isSafeInteger(parsed) ? 'unsafe_integer' : undefined;
  const written = toDecimal(raw);
  if (written === undefined) return undefined; // not a number literal: the grammar check reports it
  const integerValued = written.digits === '' || written.exponent >= 0;
  if (!Number.isFinite(parsed)) return integerValued ? 'unsafe_integer' : 'lossy_number';
  if (integerValued && !Number.isSafeInteger(parsed)) return 'unsafe_integer';
  const shortest = toDecimal(String(parsed));
  if (shortest === undefined) return 'lossy_number';
  if (written.digits === '' && shortest.digits === '') return undefined; // 0, -0, 0.0e5 …
  if (
    written.negative !== shortest.negative ||
    written.digits !== shortest.digits ||
    written.exponent !== shortest.exponent
  ) {
    return 'lossy_number';
  }
  return undefined;
}

const DECIMAL = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

/** Parses JSON number syntax (and JS `String(number)` output such as `1e+21`) into a normalized decimal. */
export function toDecimal(text: string): Decimal | undefined {
  const match = DECIMAL.exec(text);
  if (match === null) return undefined;
  const intPart = match[2] ?? '';
  const fracPart = match[3] ?? '';
  if (intPart === '' && fracPart === '') return undefined;
  // Exponents can be absurdly long (`1e999999999999999999999`); a float is precise
  // enough here, and ±Infinity still orders and compares correctly below.
  let exponent = match[4] === undefined ? 0 : Number(match[4]);
  let digits = intPart + fracPart;
  exponent -= fracPart.length;
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 48) start++;
  let end = digits.length;
  while (end > start && digits.charCodeAt(end - 1) === 48) end--;
  exponent += digits.length - end;
  digits = digits.slice(start, end);
  if (digits === '') exponent = 0;
  return { negative: match[1] === '-', digits, exponent };
}
