export { MIGRATIONS, type Migration } from './migrations.ts';
export { DEFAULT_SCHEMA, openPostgresStore, PostgresOpenError, type PostgresStore, type PostgresStoreOptions } from './open.ts';
export { openPostgresEvents, PostgresGateEvents, type PostgresEventsOptions } from './postgres-gate-events.ts';
