import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore, type SqliteStore, type SqliteStoreOptions } from '../open.ts';

/** A store on a new file in a new temp directory; `cleanup` closes it and removes the directory. */
export function tempStore(options: Omit<SqliteStoreOptions, 'path'> = {}): {
  store: SqliteStore;
  dir: string;
  path: string;
  cleanup: () => Promise<void>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-sqlite-'));
  const path = join(dir, 'nested', 'countersign.sqlite');
  const store = openSqliteStore({ ...options, path });
  return {
    store,
    dir,
    path,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
