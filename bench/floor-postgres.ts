import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { backendCpuUs } from './backend-cpu.ts';
import { dropSchema } from './drop-schema.ts';
import type { FloorStore } from './floor-store.ts';

/**
 * The floor's Postgres table, in a fresh schema dropped on close: a pool of 16 (as the store's),
 * each step ONE autocommitted statement, named so it is parsed and planned once per
 * connection. synchronous_commit stays as the server has it (on): each statement's commit is
 * flushed to the WAL before its reply, and Postgres flushes concurrent commits together.
 */
export async function openPostgresFloor(url: string): Promise<FloorStore> {
  const schema = `cs_http_floor_${randomBytes(6).toString('hex')}`;
  const applicationName = `cs-http-floor-${process.pid}`;
  const pool = new Pool({ connectionString: url, max: 16, connectionTimeoutMillis: 3_000, application_name: applicationName });
  pool.on('error', () => {});
  const table = `"${schema}".calls`;
  try {
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(`CREATE TABLE ${table} (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, proposal TEXT NOT NULL, consumed BOOLEAN NOT NULL DEFAULT false, result TEXT)`);
  } catch (error) {
    await pool.end();
    await dropSchema(url, schema).catch(() => {});
    throw error;
  }
  let commits = 0;
  const run = async (name: string, text: string, values: string[]) => {
    const answer = await pool.query<{ id: string }>({ name, text, values });
    commits++;
    return answer;
  };
  return {
    propose: async (proposal) => (await run('floor-propose', `INSERT INTO ${table} (proposal) VALUES ($1) RETURNING id`, [proposal])).rows[0]!.id,
    consume: async (id) => (await run('floor-consume', `UPDATE ${table} SET consumed = true WHERE id = $1 AND NOT consumed`, [id])).rowCount === 1,
    complete: async (id, result) =>
      (await run('floor-complete', `UPDATE ${table} SET result = $2 WHERE id = $1 AND consumed AND result IS NULL`, [id, result])).rowCount === 1,
    commits: () => commits,
    dbCpuUs: () => backendCpuUs(url, applicationName),
    close: async () => {
      await pool.end();
      await dropSchema(url, schema);
    },
  };
}
