export { MIGRATIONS, type Migration } from './migrations.ts';
export { DEFAULT_SCHEMA, openPostgresStore, type PostgresStore, type PostgresStoreOptions } from './open.ts';
