import { DEFAULT_SQLITE_PATH } from '@countersign/store-sqlite';

/** Where the ledger and audit chain live. */
export type StoreTarget =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; connectionString: string; schema?: string | undefined };

/** The SQLite file used when no store is given: the store package's default, relative to the working directory. */
export const DEFAULT_DB_PATH: string = DEFAULT_SQLITE_PATH;

/** A connection string safe to print: the password is replaced. */
export function redactConnectionString(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable connection string)';
  }
}

/** One line naming the store, without secrets. */
export function describeStoreTarget(target: StoreTarget): string {
  if (target.kind === 'sqlite') return `sqlite ${target.path}`;
  const schema = target.schema === undefined ? '' : ` (schema ${target.schema})`;
  return `postgres ${redactConnectionString(target.connectionString)}${schema}`;
}
