// A DBOS system database of its own for one test file: a schema of the test database (DBOS
// creates it), dropped after. A schema rather than a database: DROP DATABASE waits for a
// checkpoint of the whole PostgreSQL cluster, which on a busy machine takes longer than the
// tests it follows; DROP SCHEMA does not. DBOS qualifies all of its tables, functions and
// triggers with the schema; its LISTEN/NOTIFY channels are database-wide, and a wake-up for a
// workflow id another schema does not hold is ignored there.
import { randomBytes } from 'node:crypto';
import { dropSchema, TEST_PG_URL } from '@countersign/store-postgres/testing';
import { DBOS } from '@dbos-inc/dbos-sdk';

export interface SystemDatabase {
  url: string;
  /** DBOS's `systemDatabaseSchemaName`: give it with `url` wherever DBOS connects (DBOS.setConfig, DBOSClient.create). */
  schema: string;
  drop(): Promise<void>;
}

export async function createSystemDatabase(): Promise<SystemDatabase> {
  const schema = `countersign_dbos_${randomBytes(6).toString('hex')}`;
  // Creates the schema and the DBOS tables without launching DBOS in this process.
  await DBOS.migrate(TEST_PG_URL, { schemaName: schema });
  return { url: TEST_PG_URL, schema, drop: () => dropSchema(schema) };
}

/** DBOS launched in this test process on a system database of its own (register workflows first). */
export async function launchDbos(name: string): Promise<SystemDatabase> {
  const system = await createSystemDatabase();
  DBOS.setConfig({ name, systemDatabaseUrl: system.url, systemDatabaseSchemaName: system.schema, runAdminServer: false, logLevel: 'error' });
  await DBOS.launch();
  return system;
}

/** Shuts DBOS down (its workflows deregistered) and drops the system database. */
export async function shutdownDbos(system: SystemDatabase | undefined): Promise<void> {
  await DBOS.shutdown({ deregister: true });
  await system?.drop();
}
