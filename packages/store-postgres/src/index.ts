export { MIGRATIONS, type Migration } from './migrations.ts';
export { DEFAULT_SCHEMA, openPostgresStore, PostgresOpenError, type PostgresStore, type PostgresStoreOptions } from './open.ts';
