// A DBOS system database of its own for one test file (DBOS creates it), dropped after.
import { randomBytes } from 'node:crypto';
import { TEST_PG_URL } from '@countersign/store-postgres/testing';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { Client } from 'pg';

export interface SystemDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createSystemDatabase(): Promise<SystemDatabase> {
  const name = `countersign_dbos_${randomBytes(6).toString('hex')}`;
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${name}`;
  // Creates the database and the DBOS tables without launching DBOS in this process.
  await DBOS.migrate(url.toString());
  return {
    url: url.toString(),
    drop: async () => {
      const admin = new Client({ connectionString: TEST_PG_URL, connectionTimeoutMillis: 5_000 });
      admin.on('error', () => {});
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}

/** DBOS launched in this test process on a system database of its own (register workflows first). */
export async function launchDbos(name: string): Promise<SystemDatabase> {
  const system = await createSystemDatabase();
  DBOS.setConfig({ name, systemDatabaseUrl: system.url, runAdminServer: false, logLevel: 'error' });
  await DBOS.launch();
  return system;
}

/** Shuts DBOS down (its workflows deregistered) and drops the system database. */
export async function shutdownDbos(system: SystemDatabase | undefined): Promise<void> {
  await DBOS.shutdown({ deregister: true });
  await system?.drop();
}
