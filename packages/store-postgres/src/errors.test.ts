import { LedgerError } from '@countersign/core/ledger';
import { describe, expect, it } from 'vitest';
import { isUnavailableError, toStoreError } from './errors.ts';

function withCode(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('postgres error mapping', () => {
  it.each([
    ['refused socket', withCode('ECONNREFUSED')],
    ['reset socket', withCode('ECONNRESET')],
    ['unresolvable host', withCode('ENOTFOUND')],
    ['connection exception class 08', withCode('08006')],
    ['admin shutdown', withCode('57P01')],
    ['cannot connect now', withCode('57P03')],
    ['statement timeout', withCode('57014')],
    ['too many connections', withCode('53300')],
    ['deadlock', withCode('40P01')],
    ['connection lost', new Error('Connection terminated unexpectedly')],
    ['connect timeout', new Error('timeout expired')],
    ['pool connect timeout', new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') })],
    ['query timeout', new Error('Query read timeout')],
    ['pool exhausted', new Error('timeout exceeded when trying to connect')],
    ['pool ended', new Error('Cannot use a pool after calling end on the pool')],
    ['cause chain', new Error('wrapped', { cause: withCode('ECONNREFUSED') })],
  ])('%s is store_unavailable', (_name, error) => {
    expect(isUnavailableError(error)).toBe(true);
    const mapped = toStoreError(error);
    expect(mapped).toBeInstanceOf(LedgerError);
    expect(mapped).toMatchObject({ code: 'store_unavailable', cause: error });
  });

  it.each([
    ['unique violation', withCode('23505')],
    ['syntax error', withCode('42601')],
    ['undefined table', withCode('42P01')],
    ['plain bug', new TypeError('x is not a function')],
    ['not an error', 'ECONNREFUSED'],
  ])('%s passes through unchanged', (_name, error) => {
    expect(isUnavailableError(error)).toBe(false);
    expect(toStoreError(error)).toBe(error);
  });
});
