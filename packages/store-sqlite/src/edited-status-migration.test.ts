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

// Migration 7: a request an edit closed before it (stored `denied`, its deny naming the
// edited proposal) becomes `edited`; a real deny stays `denied`; decisions and foreign keys survive.
it('edited status migration (7): edit-closed requests become edited, real denies stay denied', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-mig7-'));
  dirs.push(dir);
  const path = join(dir, 'db.sqlite');
  const db = new DatabaseSync(path);
  try {
    db.exec('PRAGMA foreign_keys = ON');
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version <= 6),
    );
    db.exec(`
      INSERT INTO runs (run_id, agent, created_at) VALUES ('r', 'in-process', 1);
      INSERT INTO proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state, agent)
        VALUES ('p-1', 'r', 's', 'u', 'c1', 't', '{}', 'd', 1, 'proposed', 'in-process'),
               ('p-2', 'r', 's', 'u', 'c2', 't', '{}', 'd', 1, 'proposed', 'in-process'),
               ('p-3', 'r', 's', 'u', 'c1~edit', 't', '{"a":1}', 'e', 1, 'proposed', 'in-process');
      INSERT INTO approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals, eligible, status)
        VALUES ('q-edited', 'p-1', 1, 99, 1, '{}', 'denied'), ('q-denied', 'p-2', 1, 99, 1, '{}', 'denied'), ('q-new', 'p-3', 1, 99, 1, '{}', 'pending');
      INSERT INTO decisions (request_id, position, approver, decision, reason, at, edited_proposal_id)
        VALUES ('q-edited', 1, 'alice', 'deny', 'edited', 2, 'p-3'), ('q-denied', 1, 'alice', 'deny', 'no', 2, NULL);
    `);
    expect(migrate(db)).toEqual(MIGRATIONS.map((m) => m.version).filter((v) => v > 6));
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    // Foreign keys still point at the rebuilt table: a decision for no request is refused.
    expect(() => db.prepare("INSERT INTO decisions (request_id, position, approver, decision, at) VALUES ('nope', 1, 'x', 'deny', 1)").run()).toThrow(
      /FOREIGN KEY/,
    );
  } finally {
    db.close();
  }
  const store = openSqliteStore({ path });
  try {
    expect(await store.ledger.getApprovalRequest('q-edited')).toMatchObject({ status: 'edited', decisions: [{ approver: 'alice', editedProposalId: 'p-3' }] });
    expect(await store.ledger.getApprovalRequest('q-denied')).toMatchObject({ status: 'denied' });
    expect((await store.ledger.listApprovalRequests({ status: 'edited' }, 5)).map((r) => r.requestId)).toEqual(['q-edited']);
  } finally {
    await store.close();
  }
});
