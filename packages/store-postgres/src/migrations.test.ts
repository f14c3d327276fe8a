import { verifyChain } from '@countersign/core';
import { sampleProposal } from '@countersign/core/testing';
import { Pool } from 'pg';
import { afterAll, expect, it } from 'vitest';
import { PgDatabase } from './database.ts';
import { MIGRATIONS, migrate } from './migrations.ts';
import { openPostgresStore } from './open.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/test-database.ts';

describePg('postgres migrations and reopen', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const s of schemas) await dropSchema(s);
  });
  function fresh(): string {
    const s = randomSchema();
    schemas.push(s);
    return s;
  }

  it('five replicas opening one fresh schema at once: each migration applied exactly once', async () => {
    const schema = fresh();
    const stores = await Promise.all(Array.from({ length: 5 }, () => openPostgresStore({ connectionString: TEST_PG_URL, schema })));
    try {
      const applied = await Promise.all(stores.map((s) => s.migrate()));
      expect(applied).toEqual(stores.map(() => []));
      const pool = new Pool({ connectionString: TEST_PG_URL });
      const { rows } = await pool.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`);
      await pool.end();
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('keeps data across close and reopen; the chain continues', async () => {
    const schema = fresh();
    const first = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    const p = sampleProposal();
    await first.ledger.recordProposal(p);
    await first.ledger.consume({ proposalId: p.proposalId, now: p.createdAt + 1 });
    for (let i = 0; i < 3; i++) await first.audit.append({ type: 'dispatch', at: i, proposalId: p.proposalId });
    await first.close();
    const second = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      expect(await second.ledger.getProposal(p.proposalId)).toMatchObject({ ...p, state: 'dispatched', dispatchedAt: p.createdAt + 1 });
      expect((await second.audit.append({ type: 'result', at: 9 })).seq).toBe(4);
      expect(verifyChain(await second.audit.read())).toMatchObject({ ok: true, count: 4 });
    } finally {
      await second.close();
    }
  });

  it('a failing migration rolls back entirely', async () => {
    const schema = fresh();
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    try {
      expect(await migrate(db, schema)).toEqual(MIGRATIONS.map((m) => m.version));
      const last = MIGRATIONS.at(-1)!.version;
      const broken = [...MIGRATIONS, { version: last + 1, name: 'broken', sql: (s: string) => `CREATE TABLE ${s}.half (a int); SELECT * FROM nowhere` }];
      await expect(migrate(db, schema, broken)).rejects.toThrow();
      const { rows } = await db.query(
        `SELECT (SELECT MAX(version) FROM "${schema}".schema_migrations) AS v, to_regclass('"${schema}".half') AS half`,
      );
      expect(rows[0]).toEqual({ v: last, half: null });
    } finally {
      await db.close();
    }
  });

  it('refuses schema names that are not plain lower-case identifiers', async () => {
    for (const schema of ['Countersign', 'a-b', 'x"; DROP TABLE y; --', '', '1abc']) {
      await expect(openPostgresStore({ connectionString: TEST_PG_URL, schema })).rejects.toThrow(TypeError);
    }
  });
});
