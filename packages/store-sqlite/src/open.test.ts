import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { verifyChain } from '@countersign/core/audit';
import { sampleProposal } from '@countersign/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database.ts';
import { MIGRATIONS, migrate } from './migrations.ts';
import { openSqliteStore } from './open.ts';

describe('openSqliteStore', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function tempDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-open-'));
    dirs.push(dir);
    return dir;
  }

  it('defaults to .countersign/countersign.sqlite under the working directory', () => {
    const cwd = tempDir();
    const openUrl = pathToFileURL(join(import.meta.dirname, 'open.ts')).href;
    const script = `import { openSqliteStore } from ${JSON.stringify(openUrl)};
      const s = openSqliteStore(); console.log(s.path); await s.close();`;
    const out = execFileSync(process.execPath, ['--conditions=countersign-source', '--input-type=module', '-e', script], {
      cwd,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(join(cwd, '.countersign', 'countersign.sqlite'));
    expect(existsSync(join(cwd, '.countersign', 'countersign.sqlite'))).toBe(true);
  });

  it('sets WAL, synchronous=FULL, foreign keys and busy_timeout on the connection', () => {
    const db = openDatabase(join(tempDir(), 'a', 'b', 'db.sqlite'), 1234);
    try {
      expect(db.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
      expect(db.prepare('PRAGMA synchronous').get()).toEqual({ synchronous: 2 });
      expect(db.prepare('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 });
      expect(db.prepare('PRAGMA busy_timeout').get()).toEqual({ timeout: 1234 });
    } finally {
      db.close();
    }
  });

  it('keeps the data across close and reopen; the chain continues', async () => {
    const path = join(tempDir(), 'db.sqlite');
    const first = openSqliteStore({ path });
    const p = sampleProposal();
    await first.ledger.recordProposal(p);
    await first.ledger.consume({ proposalId: p.proposalId, now: p.createdAt + 1 });
    for (let i = 0; i < 3; i++) await first.audit.append({ type: 'dispatch', at: i, proposalId: p.proposalId });
    await first.close();

    const second = openSqliteStore({ path });
    expect(await second.ledger.getProposal(p.proposalId)).toMatchObject({ ...p, state: 'dispatched' });
    expect(await second.audit.head()).toMatchObject({ seq: 3 });
    expect((await second.audit.append({ type: 'result', at: 9 })).seq).toBe(4);
    expect(verifyChain(await second.audit.read())).toMatchObject({ ok: true, count: 4 });
    await second.close();
  });

  it('applies each migration once; reopening is a no-op', () => {
    const path = join(tempDir(), 'db.sqlite');
    openDatabase(path, 100).close();
    openSqliteStore({ path }).close();
    const db = openDatabase(path, 100);
    try {
      expect(migrate(db)).toEqual([]);
      const rows = db.prepare('SELECT version FROM schema_migrations ORDER BY version').all();
      expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    } finally {
      db.close();
    }
  });

  it('run ownership migration: runs recorded before it belong to the in-process owner (fail closed for agents)', async () => {
    const path = join(tempDir(), 'db.sqlite');
    // A database as version 1 left it (node:sqlite directly: openDatabase migrates to the latest).
    const db = new DatabaseSync(path);
    try {
      migrate(db, MIGRATIONS.filter((m) => m.version === 1));
      db.prepare(
        `INSERT INTO proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state)
         VALUES ('p-old', 'run-old', 's', 'user:1', 'c', 'transfer', '{}', 'd', 5, 'proposed')`,
      ).run();
      expect(migrate(db)).toContain(2);
    } finally {
      db.close();
    }
    const store = openSqliteStore({ path });
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
    const path = join(tempDir(), 'db.sqlite');
    const db = new DatabaseSync(path);
    try {
      migrate(db, MIGRATIONS.filter((m) => m.version <= 4));
      db.exec(`INSERT INTO runs (run_id, agent, created_at) VALUES ('run-old', 'in-process', 5)`);
      db.exec(
        `INSERT INTO proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, canonical_args, args_digest, created_at, state,
           dispatched_at, result_status, result_digest, result_at, agent)
         VALUES ('p-old', 'run-old', 's', 'user:1', 'c', 'read_file', '{}', 'd', 5, 'dispatched', 6, 'succeeded', '${'a'.repeat(64)}', 7, 'in-process')`,
      );
      expect(migrate(db)).toEqual([5, 6, 7, 8, 9, 10, 11, 12, 13]);
    } finally {
      db.close();
    }
    const store = openSqliteStore({ path });
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

  it('a stored projection that is not a digest of a known projection is a corrupt record, never data', async () => {
    const path = join(tempDir(), 'db.sqlite');
    const store = openSqliteStore({ path });
    const p = sampleProposal();
    try {
      await store.ledger.recordProposal(p);
      await store.ledger.consume({ proposalId: p.proposalId, now: p.createdAt });
      await store.ledger.recordResult(p.proposalId, { status: 'succeeded', resultDigest: 'b'.repeat(64), projections: { json: 'b'.repeat(64) }, at: 9 });
    } finally {
      await store.close();
    }
    for (const forged of ['{"json":"not-a-digest"}', `{"anything":"${'b'.repeat(64)}"}`, '[]']) {
      const db = new DatabaseSync(path);
      db.prepare('UPDATE proposals SET result_projections = ? WHERE proposal_id = ?').run(forged, p.proposalId);
      db.close();
      const reopened = openSqliteStore({ path });
      try {
        await expect(reopened.ledger.getProposal(p.proposalId)).rejects.toMatchObject({ code: 'corrupt_record' });
      } finally {
        await reopened.close();
      }
    }
  });

  it('audit index migration (6): records written before it read back unchanged, the chain verifies and continues', async () => {
    const path = join(tempDir(), 'db.sqlite');
    const before = openSqliteStore({ path });
    for (let i = 0; i < 3; i++) await before.audit.append({ type: 'dispatch', at: i, proposalId: `p-${i}` });
    const written = await before.audit.read();
    await before.close();
    // Back to the schema as version 5 left it, the old table with its UNIQUE hash index.
    const db = new DatabaseSync(path);
    try {
      db.exec(`ALTER TABLE audit_records RENAME TO audit_records_new;
        CREATE TABLE audit_records (seq INTEGER PRIMARY KEY CHECK (seq >= 1), prev_hash TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, event TEXT NOT NULL) STRICT;
        INSERT INTO audit_records SELECT * FROM audit_records_new; DROP TABLE audit_records_new;
        ALTER TABLE approval_requests DROP COLUMN passkey; ALTER TABLE decisions DROP COLUMN passkey; DROP TABLE passkey_credentials;
        ALTER TABLE proposals DROP COLUMN context; ALTER TABLE approval_requests DROP COLUMN rule_description; DROP TABLE call_refusals; ALTER TABLE proposals DROP COLUMN registered_by; ALTER TABLE proposals DROP COLUMN executed_by;
        DELETE FROM schema_migrations WHERE version >= 6;`);
      expect(db.prepare("SELECT COUNT(*) AS n FROM pragma_index_list('audit_records')").get()).toEqual({ n: 1 });
      expect(migrate(db)).toEqual([6, 7, 8, 9, 10, 11, 12, 13]);
      expect(db.prepare("SELECT COUNT(*) AS n FROM pragma_index_list('audit_records')").get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    const after = openSqliteStore({ path });
    try {
      expect(await after.audit.read()).toEqual(written);
      expect((await after.audit.append({ type: 'result', at: 9 })).seq).toBe(4);
      expect(verifyChain(await after.audit.read())).toMatchObject({ ok: true, count: 4 });
    } finally {
      await after.close();
    }
  });

  it('a failing migration rolls back entirely', () => {
    const path = join(tempDir(), 'db.sqlite');
    const db = openDatabase(path, 100);
    try {
      const latest = Math.max(...MIGRATIONS.map((m) => m.version));
      const broken = [...MIGRATIONS, { version: latest + 1, name: 'broken', sql: 'CREATE TABLE half (a); SELECT * FROM nowhere;' }];
      expect(() => migrate(db, broken)).toThrow();
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
      expect(db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: latest });
      expect(migrate(db, [...MIGRATIONS, { version: latest + 1, name: 'fixed', sql: 'CREATE TABLE half (a)' }])).toEqual([latest + 1]);
    } finally {
      db.close();
    }
  });
});
