import { LedgerError } from '../ledger/errors.ts';

/** A row as a driver returns it; fields are checked before they become typed records. */
export type Row = Readonly<Record<string, unknown>>;

function corrupt(column: string, expected: string): LedgerError {
  return new LedgerError('corrupt_record', `column ${column}: expected ${expected}`);
}

export function text(row: Row, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw corrupt(column, 'text');
  return value;
}

export function optionalText(row: Row, column: string): string | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : text(row, column);
}

export function integer(row: Row, column: string): number {
  const value = row[column];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw corrupt(column, 'an integer');
  return value;
}

export function optionalInteger(row: Row, column: string): number | undefined {
  const value = row[column];
  return value === null || value === undefined ? undefined : integer(row, column);
}

export function oneOf<T extends string>(row: Row, column: string, allowed: readonly T[]): T {
  const value = text(row, column);
  if (!(allowed as readonly string[]).includes(value)) throw corrupt(column, allowed.join('|'));
  return value as T;
}

/**
 * A json/jsonb column. node-postgres has already parsed it; text (from a cast or
 * another driver) is parsed here. Text that does not parse is corrupt, not an outage.
 */
export function json(row: Row, column: string): unknown {
  const value = row[column];
  if (typeof value !== 'string') {
    if (value === null || value === undefined) throw corrupt(column, 'JSON');
    return value;
  }
  try {
    return JSON.parse(value);
  } catch (error) {
    throw new LedgerError('corrupt_record', `column ${column}: invalid JSON`, { cause: error });
  }
}
