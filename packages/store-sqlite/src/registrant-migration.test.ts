import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { MIGRATIONS, migrate } from './migrations.ts';
import { openSqliteStore } from './open.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// Migration 11: a definition review's registering agent, kept in the review record's
// `context` before, moves to its own column; an agent's words on a model's call stay context.
it('registrant migration (11): a review record moves its registrant from context to registered_by; a call keeps its context', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-mig11-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const db = new DatabaseSync(path);
  try {
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version <= 10),
    );
    db.exec(`
      INSERT INTO runs (run_id, agent, created_at) VALUES ('countersign:definition-review:send_email', 'countersign:definitions', 1), ('r', 'runtime', 1);
      INSERT INTO proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state, agent, context)
        VALUES ('p-review', 'countersign:definition-review:send_email', 'countersign:definitions', 'countersign:definitions', 'd@1',
                'countersign:definition-review', '{}', 'd', 1, 'proposed', 'countersign:definitions', 'runtime'),
               ('p-call', 'r', 's', 'u', 'c1', 'send_email', '{}', 'd', 1, 'proposed', 'runtime', 'Sending the report you asked for.');
    `);
    expect(migrate(db)).toEqual(MIGRATIONS.map((m) => m.version).filter((v) => v > 10));
  } finally {
    db.close();
  }
  const store = openSqliteStore({ path });
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
