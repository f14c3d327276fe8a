export { MIGRATIONS, type Migration } from './migrations.ts';
export { DEFAULT_SQLITE_PATH, openSqliteStore, type SqliteStore, type SqliteStoreOptions } from './open.ts';
