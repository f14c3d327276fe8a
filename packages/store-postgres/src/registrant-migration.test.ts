import { Pool } from 'pg';
import { afterAll, expect, it } from 'vitest';
import { PgDatabase } from './database.ts';
import { MIGRATIONS, migrate } from './migrations.ts';
import { openPostgresStore } from './open.ts';
import { describePg, dropSchema, randomSchema, TEST_PG_URL } from './testing/test-database.ts';

// Migration 12: a definition review's registering agent, kept in the review record's
// `context` before, moves to its own column; an agent's words on a model's call stay context.
describePg('postgres registrant migration (12)', () => {
  const schema = randomSchema();
  afterAll(async () => {
    await dropSchema(schema);
  });

  it('a review record moves its registrant from context to registered_by; a call keeps its context', async () => {
    const db = new PgDatabase(new Pool({ connectionString: TEST_PG_URL }));
    const s = `"${schema}"`;
    try {
      await migrate(
        db,
        schema,
        MIGRATIONS.filter((m) => m.version <= 11),
      );
      await db.query(`INSERT INTO ${s}.runs (run_id, agent, created_at) VALUES ('countersign:definition-review:send_email', 'countersign:definitions', 1), ('r', 'runtime', 1)`);
      await db.query(`INSERT INTO ${s}.proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state, agent, context)
        VALUES ('p-review', 'countersign:definition-review:send_email', 'countersign:definitions', 'countersign:definitions', 'd@1',
                'countersign:definition-review', '{}', 'd', 1, 'proposed', 'countersign:definitions', 'runtime'),
               ('p-call', 'r', 's', 'u', 'c1', 'send_email', '{}', 'd', 1, 'proposed', 'runtime', 'Sending the report you asked for.')`);
      expect(await migrate(db, schema)).toEqual(MIGRATIONS.map((m) => m.version).filter((v) => v > 11));
    } finally {
      await db.close();
    }
    const store = await openPostgresStore({ connectionString: TEST_PG_URL, schema });
    try {
      const review = await store.ledger.getProposal('p-review');
      expect(review?.registeredBy).toBe('runtime');
      expect(review !== undefined && 'context' in review).toBe(false);
      const call = await store.ledger.getProposal('p-call');
      expect(call?.context).toBe('Sending the report you asked for.');
      expect(call !== undefined && 'registeredBy' in call).toBe(false);
    } finally {
      await store.close();
    }
  });
});
