import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { describe, it } from 'vitest';
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from '../open.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

export const TEST_PG_URL = process.env.COUNTERSIGN_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const inCi = process.env.CI !== undefined && !['', '0', 'false'].includes(process.env.CI.toLowerCase());

/** Whether the test database answers (2 s to connect). */
export async function databaseReachable(url = TEST_PG_URL): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const reachable = await databaseReachable();

/**
 * Declares PostgreSQL tests. Without a reachable database they are skipped locally
 * with a message saying why; under CI they run anyway and fail, so a missing
 * database can never turn a red build green.
 */
export function describePg(name: string, body: () => void): void {
  if (reachable || inCi) {
    describe(name, body);
    return;
  }
  describe.skip(`${name} — PostgreSQL unreachable at ${TEST_PG_URL} (set COUNTERSIGN_TEST_PG_URL; under CI this fails)`, () => {
    it('needs PostgreSQL', () => {});
  });
}

/** A fresh schema name, unique per call. */
export function randomSchema(): string {
  return `cs_test_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string, url = TEST_PG_URL): Promise<void> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A store on a new schema of the test database; `cleanup` closes it and drops the schema. */
export async function tempStore(
  options: Partial<PostgresStoreOptions> = {},
): Promise<{ store: PostgresStore; schema: string; cleanup: () => Promise<void> }> {
  const schema = options.schema ?? randomSchema();
  const store = await openPostgresStore({ connectionString: TEST_PG_URL, ...options, schema });
  return {
    store,
    schema,
    cleanup: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
}

/** A TCP proxy in front of the test database (for outage tests), and the connection string through it. */
export async function proxiedTestDatabase(): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(TEST_PG_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(TEST_PG_URL);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  return { proxy, url: viaProxy.href };
}
