import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointingAuditLog } from '@countersign/core/audit';
import { hmacKey, Keyring } from '@countersign/core/token';
import { FIXTURE_SECRET, makeGateFixture } from '@countersign/core/testing';
import { openPostgresStore } from '@countersign/store-postgres';
import { Client } from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './serve/testing/postgres.ts';
import { runCaptured } from './testing/capture-io.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-audit-pg-'));
const env = { COUNTERSIGN_MASTER_SECRET: FIXTURE_SECRET.toString('hex') };

async function schemaExists(schema: string): Promise<boolean> {
  const client = new Client({ connectionString: TEST_PG_URL });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    return found.rowCount === 1;
  } finally {
    await client.end();
  }
}

describePg('audit verify on Postgres', () => {
  const schema = randomSchema();
  const missing = randomSchema();

  beforeAll(async () => {
    const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      const keyring = new Keyring([hmacKey('k1', FIXTURE_SECRET)]);
      const audit = new CheckpointingAuditLog(store.audit, { keyring, everyRecords: 3, everyMs: 0 });
      const fx = makeGateFixture({ ledger: store.ledger, audit, keyring });
      for (const amount of [1, 2, 3]) {
        const call = fx.call({ arguments: `{"amount":${amount},"to":"bob"}` });
        await fx.gate.propose(call);
        await fx.gate.dispatch(fx.dispatchFor(call));
      }
      await audit.close();
    } finally {
      await store.close();
    }
  });
  afterAll(async () => {
    await dropSchema(schema);
    await dropSchema(missing);
    rmSync(cwd, { recursive: true, force: true });
  });

  const verify = (s: string) => runCaptured(['audit', 'verify', '--database-url', TEST_PG_URL, '--pg-schema', s, '--json'], { cwd, env });

  it('a mistyped --pg-schema fails with "no such schema" and creates nothing', async () => {
    const run = await verify(missing);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, error: { code: 'io' } });
    expect(run.stderr).toContain(`no such schema "${missing}"`);
    expect(await schemaExists(missing)).toBe(false);
  });

  it('verifies the checkpoints with the key, and detects a rewrite with recomputed hashes', async () => {
    const ok = await verify(schema);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, checkpoints: { keys: 'COUNTERSIGN_MASTER_SECRET' } });

    // Rewrite every result's content and recompute all hashes, as a writer without the key can.
    const { buildRecord } = await import('@countersign/core/audit');
    const client = new Client({ connectionString: TEST_PG_URL });
    await client.connect();
    try {
      const rows = (await client.query(`SELECT seq, prev_hash, hash, event FROM "${schema}".audit_records ORDER BY seq`)).rows;
      const rebuilt: ReturnType<typeof buildRecord>[] = [];
      for (const row of rows) {
        const event = row.event.type === 'result' ? { ...row.event, detail: { forged: true } } : row.event;
        rebuilt.push(buildRecord(rebuilt.at(-1), event));
      }
      await client.query('BEGIN');
      await client.query(`DELETE FROM "${schema}".audit_records`);
      for (const { seq, prevHash, hash, ...event } of rebuilt) {
        await client.query(`INSERT INTO "${schema}".audit_records (seq, prev_hash, hash, event) VALUES ($1, $2, $3, $4)`, [seq, prevHash, hash, JSON.stringify(event)]);
      }
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
    const noKey = await runCaptured(['audit', 'verify', '--database-url', TEST_PG_URL, '--pg-schema', schema, '--json'], { cwd });
    expect(noKey.code).toBe(0);
    const run = await verify(schema);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, reason: 'checkpoint_mismatch' });
  });
});
