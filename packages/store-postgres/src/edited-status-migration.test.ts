import { Pool } from 'pg';
import { afterAll, expect, it } from 'vitest';
import { PgDatabase } from './database.ts';
import { MIGRATIONS, migrate } from './migrations.ts';
import { openPostgresStore } from './open.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/test-database.ts';

describePg('postgres edited status migration (7)', () => {
  const schema = randomSchema();
  afterAll(async () => {
    await dropSchema(schema);
  });

  it('edit-closed requests become edited, real denies stay denied, the CHECK admits edited and nothing else new', async () => {
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    const s = `"${schema}"`;
    try {
      await migrate(
        db,
        schema,
        MIGRATIONS.filter((m) => m.version <= 6),
      );
      await db.query(`INSERT INTO ${s}.runs (run_id, agent, created_at) VALUES ('r', 'in-process', 1)`);
      await db.query(`INSERT INTO ${s}.proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state, agent)
        VALUES ('p-1', 'r', 's', 'u', 'c1', 't', '{}', 'd', 1, 'proposed', 'in-process'), ('p-2', 'r', 's', 'u', 'c2', 't', '{}', 'd', 1, 'proposed', 'in-process')`);
      await db.query(`INSERT INTO ${s}.approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals, eligible, status)
        VALUES ('q-edited', 'p-1', 1, 99, 1, '{}', 'denied'), ('q-denied', 'p-2', 1, 99, 1, '{}', 'denied')`);
      await db.query(`INSERT INTO ${s}.decisions (request_id, position, approver, decision, reason, at, edited_proposal_id)
        VALUES ('q-edited', 1, 'alice', 'deny', 'edited', 2, 'p-3'), ('q-denied', 1, 'alice', 'deny', 'no', 2, NULL)`);
      expect(await migrate(db, schema)).toEqual(MIGRATIONS.map((m) => m.version).filter((v) => v > 6));
      await expect(db.query(`UPDATE ${s}.approval_requests SET status = 'bogus' WHERE request_id = 'q-denied'`)).rejects.toThrow(/check constraint/);
    } finally {
      await db.close();
    }
    const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      expect(await store.ledger.getApprovalRequest('q-edited')).toMatchObject({ status: 'edited' });
      expect(await store.ledger.getApprovalRequest('q-denied')).toMatchObject({ status: 'denied' });
      expect((await store.ledger.listApprovalRequests({ status: 'edited' }, 5)).map((r) => r.requestId)).toEqual(['q-edited']);
    } finally {
      await store.close();
    }
  });
});
