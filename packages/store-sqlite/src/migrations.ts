import type { DatabaseSync } from 'node:sqlite';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Numbered, append-only: never edit a shipped migration, add the next one.
 * STRICT tables make SQLite enforce the column types. Times are INTEGER
 * milliseconds since the epoch; JSON lives in TEXT columns.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger and audit chain',
    sql: `
      CREATE TABLE proposals (
        proposal_id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        principal TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        definition_digest TEXT,
        canonical_args TEXT NOT NULL,
        args_digest TEXT NOT NULL,
        model_response_ref TEXT,
        parent_proposal_id TEXT,
        created_at INTEGER NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('proposed', 'dispatched')),
        dispatched_at INTEGER,
        result_status TEXT CHECK (result_status IN ('succeeded', 'failed')),
        result_digest TEXT,
        result_at INTEGER,
        UNIQUE (run_id, call_id)
      ) STRICT;

      CREATE TABLE approval_requests (
        request_id TEXT PRIMARY KEY,
        proposal_id TEXT NOT NULL UNIQUE REFERENCES proposals (proposal_id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        required_approvals INTEGER NOT NULL CHECK (required_approvals >= 1),
        eligible TEXT NOT NULL,
        rule_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'revoked', 'consumed')),
        token_id TEXT,
        approved_at INTEGER,
        consumed_at INTEGER
      ) STRICT;
      CREATE INDEX approval_requests_newest ON approval_requests (created_at DESC, request_id DESC);

      CREATE TABLE decisions (
        request_id TEXT NOT NULL REFERENCES approval_requests (request_id),
        position INTEGER NOT NULL,
        approver TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('approve', 'deny')),
        reason TEXT,
        at INTEGER NOT NULL,
        edited_proposal_id TEXT,
        PRIMARY KEY (request_id, approver),
        UNIQUE (request_id, position)
      ) STRICT;

      -- The event body is stored as the JSON text of the hashed fields, so a record
      -- reads back exactly as it was hashed (absent fields stay absent).
      CREATE TABLE audit_records (
        seq INTEGER PRIMARY KEY CHECK (seq >= 1),
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        event TEXT NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'run ownership',
    // A run belongs to the agent that recorded its first call; the primary key makes
    // "first" atomic. Runs recorded before this migration belong to the in-process
    // default owner ('in-process'): agents over HTTP no longer see them (fail closed).
    sql: `
      CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      ALTER TABLE proposals ADD COLUMN agent TEXT NOT NULL DEFAULT 'in-process';
      INSERT INTO runs (run_id, agent, created_at)
        SELECT run_id, 'in-process', MIN(created_at) FROM proposals GROUP BY run_id;
    `,
  },
  {
    version: 3,
    name: 'revoked login sessions',
    sql: `
      -- Logged-out sessions until their own expiry, so logout holds across restarts.
      CREATE TABLE revoked_sessions (
        session_id TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX revoked_sessions_expiry ON revoked_sessions (expires_at);
    `,
  },
  {
    version: 4,
    name: 'tool definitions and pins',
    sql: `
      -- Each definition as first seen, by the SHA-256 of its canonical text (kept as written).
      CREATE TABLE tool_definitions (
        digest TEXT PRIMARY KEY,
        definition TEXT NOT NULL,
        first_seen_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE tool_pins (
        tool_name TEXT PRIMARY KEY,
        status TEXT NOT NULL CHECK (status IN ('trusted', 'changed', 'disabled')),
        trusted_digest TEXT,
        pending_digest TEXT,
        updated_at INTEGER NOT NULL
      ) STRICT;
      -- Tools agents run themselves; only the first registering agent may change one.
      CREATE TABLE tool_registrations (
        tool_name TEXT PRIMARY KEY,
        definition_digest TEXT NOT NULL,
        agent TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
    `,
  },
  {
    version: 5,
    name: 'result projections',
    // CASA check 5: the digest of each form of a result a runtime may relay to the model
    // (JSON object: projection name -> SHA-256 hex), written once with the result.
    // Results recorded before this migration keep NULL and are checked by result_digest alone.
    sql: `
      ALTER TABLE proposals ADD COLUMN result_projections TEXT;
    `,
  },
  {
    version: 6,
    name: 'audit records without a hash index',
    // Nothing looks a record up by its hash, yet the UNIQUE index on it cost every append
    // a write to a random B-tree page (hashes are random): 70 → 42 KiB written per
    // allowed propose + dispatch at 1 client. The chain is what guards hashes (each
    // record's hash covers its seq and the previous hash; verifyChain recomputes them)
    // and seq stays the primary key. SQLite cannot drop a constraint's index, so the
    // table is rebuilt once, rows copied as they are.
    sql: `
      CREATE TABLE audit_records_v6 (
        seq INTEGER PRIMARY KEY CHECK (seq >= 1),
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL,
        event TEXT NOT NULL
      ) STRICT;
      INSERT INTO audit_records_v6 (seq, prev_hash, hash, event) SELECT seq, prev_hash, hash, event FROM audit_records ORDER BY seq;
      DROP TABLE audit_records;
      ALTER TABLE audit_records_v6 RENAME TO audit_records;
    `,
  },
  {
    version: 7,
    name: 'edited approval requests',
    // Approve-with-edits closes the original request as `edited` (it was stored as
    // `denied`, which read like a real deny). SQLite cannot change a CHECK constraint,
    // so approval_requests is rebuilt; foreign keys stay on (no PRAGMA inside the
    // migration's transaction), so the order matters: the old table is renamed first
    // (decisions' reference follows it), decisions is rebuilt pointing at the new
    // table, and only then is the old one, now unreferenced, dropped. Requests an
    // edit closed before this migration become `edited`.
    sql: `
      ALTER TABLE approval_requests RENAME TO approval_requests_v6;
      DROP INDEX approval_requests_newest;
      CREATE TABLE approval_requests (
        request_id TEXT PRIMARY KEY,
        proposal_id TEXT NOT NULL UNIQUE REFERENCES proposals (proposal_id),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        required_approvals INTEGER NOT NULL CHECK (required_approvals >= 1),
        eligible TEXT NOT NULL,
        rule_id TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'revoked', 'consumed', 'edited')),
        token_id TEXT,
        approved_at INTEGER,
        consumed_at INTEGER
      ) STRICT;
      INSERT INTO approval_requests SELECT * FROM approval_requests_v6;
      CREATE INDEX approval_requests_newest ON approval_requests (created_at DESC, request_id DESC);
      CREATE TABLE decisions_v7 (
        request_id TEXT NOT NULL REFERENCES approval_requests (request_id),
        position INTEGER NOT NULL,
        approver TEXT NOT NULL,
        decision TEXT NOT NULL CHECK (decision IN ('approve', 'deny')),
        reason TEXT,
        at INTEGER NOT NULL,
        edited_proposal_id TEXT,
        PRIMARY KEY (request_id, approver),
        UNIQUE (request_id, position)
      ) STRICT;
      INSERT INTO decisions_v7 SELECT * FROM decisions;
      DROP TABLE decisions;
      ALTER TABLE decisions_v7 RENAME TO decisions;
      DROP TABLE approval_requests_v6;
      UPDATE approval_requests SET status = 'edited'
        WHERE status = 'denied' AND request_id IN (SELECT request_id FROM decisions WHERE edited_proposal_id IS NOT NULL);
    `,
  },
  {
    version: 8,
    name: 'passkey-signed approvals',
    // A request opened under `approval: { passkey: required }` keeps the rule; each decision
    // keeps the approver's verified WebAuthn assertion (JSON); approvers' registered passkeys.
    // A removed passkey keeps its row (removed_at) so audit verify can still check what it signed.
    sql: `
      ALTER TABLE approval_requests ADD COLUMN passkey TEXT CHECK (passkey IN ('required'));
      ALTER TABLE decisions ADD COLUMN passkey TEXT;
      CREATE TABLE passkey_credentials (
        credential_id TEXT PRIMARY KEY,
        approver TEXT NOT NULL,
        public_key TEXT NOT NULL,
        counter INTEGER NOT NULL CHECK (counter >= 0),
        label TEXT NOT NULL,
        transports TEXT,
        created_at INTEGER NOT NULL,
        last_used_at INTEGER,
        removed_at INTEGER
      ) STRICT;
      CREATE INDEX passkey_credentials_approver ON passkey_credentials (approver, created_at);
    `,
  },
  {
    version: 9,
    name: 'proposal context and rule description',
    // For the approver's page: what the agent said about a call (untrusted, bounded by the
    // gate) and the human description of the rule that asked for approval. NULL when absent.
    sql: `
      ALTER TABLE proposals ADD COLUMN context TEXT;
      ALTER TABLE approval_requests ADD COLUMN rule_description TEXT;
    `,
  },
  {
    version: 10,
    name: 'passkey ceremony and public key lookups',
    // The registration ceremony (its WebAuthn challenge) each passkey was added on: one
    // ceremony adds one passkey, compared by the challenge, never by two replicas' clocks.
    // NULL for passkeys added before. The public key index serves the one-key-one-credential check.
    sql: `
      ALTER TABLE passkey_credentials ADD COLUMN ceremony TEXT;
      CREATE INDEX passkey_credentials_ceremony ON passkey_credentials (approver, ceremony);
      CREATE INDEX passkey_credentials_public_key ON passkey_credentials (public_key);
    `,
  },
  {
    version: 11,
    name: 'refusals recorded for calls',
    // The digest of each refusal text an integration gave for a call that never ran (the MCP
    // gateway's answer): a runtime relaying exactly that text back is recognised by the ledger.
    sql: `
      CREATE TABLE call_refusals (
        proposal_id TEXT NOT NULL REFERENCES proposals (proposal_id),
        text_digest TEXT NOT NULL,
        recorded_at INTEGER NOT NULL,
        PRIMARY KEY (proposal_id, text_digest)
      ) STRICT;
    `,
  },
  {
    version: 12,
    name: 'definition review registrant',
    // A definition review's registering agent gets its own column; it was kept in the review
    // record's `context`, which is for an agent's words about its own call. Review records are
    // the ones the gate writes as agent countersign:definitions (definition-review.ts).
    sql: `
      ALTER TABLE proposals ADD COLUMN registered_by TEXT;
      UPDATE proposals SET registered_by = context, context = NULL
        WHERE agent = 'countersign:definitions' AND tool_name = 'countersign:definition-review' AND context IS NOT NULL;
    `,
  },
  {
    version: 13,
    name: 'calls the provider executed',
    // 'provider' for a hosted tool the model's provider ran before the call was recorded:
    // authorize refuses it, so nothing runs it a second time. NULL for every other call.
    sql: `
      ALTER TABLE proposals ADD COLUMN executed_by TEXT CHECK (executed_by IN ('provider'));
    `,
  },
];

/**
 * Applies the migrations this database lacks, all in one BEGIN IMMEDIATE
 * transaction: processes opening a fresh file at the same time serialise here,
 * and a failed migration leaves the schema as it was. Returns the versions applied.
 */
export function migrate(db: DatabaseSync, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec('BEGIN IMMEDIATE');
  try {
    db.exec(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at INTEGER NOT NULL
      ) STRICT
    `);
    const row = db.prepare('SELECT COALESCE(MAX(version), 0) AS current FROM schema_migrations').get();
    const current = Number(row?.current ?? 0);
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      db.exec(migration.sql);
      record.run(migration.version, migration.name, Date.now());
      applied.push(migration.version);
    }
    db.exec('COMMIT');
    return applied;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
