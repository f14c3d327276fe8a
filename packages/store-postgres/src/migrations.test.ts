import { verifyChain } from '@countersign/core/audit';
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

  it('run ownership migration: runs recorded before it belong to the in-process owner (fail closed for agents)', async () => {
    const schema = fresh();
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    try {
      await migrate(db, schema, MIGRATIONS.filter((m) => m.version === 1));
      await db.query(
        `INSERT INTO "${schema}".proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state)
         VALUES ('p-old', 'run-old', 's', 'user:1', 'c', 'transfer', '{}', 'd', 5, 'proposed')`,
      );
      expect(await migrate(db, schema)).toContain(2);
    } finally {
      await db.close();
    }
    const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      expect(await store.ledger.getRunOwner('run-old')).toBe('in-process');
      expect((await store.ledger.getProposal('p-old'))?.agent).toBe('in-process');
      const late = sampleProposal({ runId: 'run-old', agent: 'runtime' });
      expect(await store.ledger.recordProposal(late)).toEqual({ ok: false, reason: 'run_owned_by_other_agent' });
    } finally {
      await store.close();
    }
  });

  it('result projections migration (5): a result recorded before it reads back without projections; new results carry them', async () => {
    const schema = fresh();
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    try {
      await migrate(db, schema, MIGRATIONS.filter((m) => m.version <= 4));
      await db.query(`INSERT INTO "${schema}".runs (run_id, agent, created_at) VALUES ('run-old', 'in-process', 5)`);
      await db.query(
        `INSERT INTO "${schema}".proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state,
           dispatched_at, result_status, result_digest, result_at, agent)
         VALUES ('p-old', 'run-old', 's', 'user:1', 'c', 'read_file', '{}', 'd', 5, 'dispatched', 6, 'succeeded', '${'a'.repeat(64)}', 7, 'in-process')`,
      );
      expect(await migrate(db, schema)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13, 14]);
    } finally {
      await db.close();
    }
    const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      expect((await store.ledger.getProposal('p-old'))?.result).toEqual({ status: 'succeeded', resultDigest: 'a'.repeat(64), at: 7 });
      const p = sampleProposal();
      await store.ledger.recordProposal(p);
      await store.ledger.consume({ proposalId: p.proposalId, now: p.createdAt });
      const result = { status: 'succeeded' as const, resultDigest: 'b'.repeat(64), projections: { json: 'b'.repeat(64), mcp_text: 'c'.repeat(64) }, at: 9 };
      await store.ledger.recordResult(p.proposalId, result);
      expect((await store.ledger.getProposal(p.proposalId))?.result).toEqual(result);
    } finally {
      await store.close();
    }
  });

  it('proposal page room migration (10): proposals keep half of each new page free, rows from before stay readable and updatable', async () => {
    const schema = fresh();
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    try {
      await migrate(db, schema, MIGRATIONS.filter((m) => m.version < 10));
      await db.query(`INSERT INTO "${schema}".runs (run_id, agent, created_at) VALUES ('run-old', 'agent-a', 5)`);
      await db.query(
        `INSERT INTO "${schema}".proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state, agent)
         VALUES ('p-old', 'run-old', 's', 'user:1', 'c', 'read_file', '{}', 'd', 5, 'proposed', 'agent-a')`,
      );
      expect(await migrate(db, schema)).toEqual([10, 11, 12, 13, 14]);
      const { rows } = await db.query(`SELECT reloptions FROM pg_class WHERE oid = to_regclass($1)`, [`"${schema}".proposals`]);
      expect(rows[0]?.reloptions).toEqual(['fillfactor=50']);
    } finally {
      await db.close();
    }
    const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      expect(await store.ledger.consume({ proposalId: 'p-old', now: 6 })).toMatchObject({ ok: true, proposal: { proposalId: 'p-old', state: 'dispatched' } });
    } finally {
      await store.close();
    }
  });

  it('audit index migration (6): drops the hash index; records stay, the chain verifies and continues', async () => {
    const schema = fresh();
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    try {
      await migrate(db, schema, MIGRATIONS.filter((m) => m.version < 6));
      const indexes = async () =>
        (await db.query(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'audit_records' ORDER BY indexname`, [schema])).rows.map(
          (r) => r.indexname,
        );
      expect(await indexes()).toEqual(['audit_records_hash_key', 'audit_records_pkey']);
      expect(await migrate(db, schema)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14]);
      expect(await indexes()).toEqual(['audit_records_pkey']);
    } finally {
      await db.close();
    }
    const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      for (let i = 0; i < 3; i++) await store.audit.append({ type: 'dispatch', at: i, proposalId: `p-${i}` });
      expect(verifyChain(await store.audit.read())).toMatchObject({ ok: true, count: 3 });
    } finally {
      await store.close();
    }
  });

  it('a failing migration rolls back entirely', async () => {
    const schema = fresh();
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    try {
      const versions = MIGRATIONS.map((m) => m.version);
      const latest = Math.max(...versions);
      expect(await migrate(db, schema)).toEqual(versions);
      const broken = [...MIGRATIONS, { version: latest + 1, name: 'broken', sql: (s: string) => `CREATE TABLE ${s}.half (a int); SELECT * FROM nowhere` }];
      await expect(migrate(db, schema, broken)).rejects.toThrow();
      const { rows } = await db.query(
        `SELECT (SELECT MAX(version) FROM "${schema}".schema_migrations) AS v, to_regclass('"${schema}".half') AS half`,
      );
      expect(rows[0]).toEqual({ v: latest, half: null });
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
