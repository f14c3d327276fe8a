import { Client } from 'pg';

/** Drops a bench's scratch schema (the bench makes a fresh one per run, on 127.0.0.1 only). */
export async function dropSchema(connectionString: string, schema: string): Promise<void> {
  const client = new Client({ connectionString, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
