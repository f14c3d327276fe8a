import type { PgDatabase } from './database.ts';
import { advisoryLockKey } from './lock-keys.ts';
import { quoteSchema } from './schema-name.ts';

export interface Migration {
  version: number;
  name: string;
  /** The SQL, given the quoted schema name. */
  sql: (schema: string) => string;
}

/**
 * Numbered, append-only: never edit a shipped migration, add the next one.
 * Times are bigint milliseconds since the epoch (the gate owns the clock).
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger and audit chain',
    sql: (s) => `
      CREATE TABLE ${s}.proposals (
        proposal_id text PRIMARY KEY,
        run_id text NOT NULL,
        session_id text NOT NULL,
        principal text NOT NULL,
        call_id text NOT NULL,
        tool_name text NOT NULL,
        definition_digest text,
        canonical_args text NOT NULL,
        args_digest text NOT NULL,
        model_response_ref text,
        parent_proposal_id text,
        created_at bigint NOT NULL,
        state text NOT NULL CHECK (state IN ('proposed', 'dispatched')),
        dispatched_at bigint,
        result_status text CHECK (result_status IN ('succeeded', 'failed')),
        result_digest text,
        result_at bigint,
        UNIQUE (run_id, call_id)
      );

      CREATE TABLE ${s}.approval_requests (
        request_id text PRIMARY KEY,
        proposal_id text NOT NULL UNIQUE REFERENCES ${s}.proposals (proposal_id),
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        required_approvals integer NOT NULL CHECK (required_approvals >= 1),
        eligible jsonb NOT NULL,
        rule_id text,
        status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'revoked', 'consumed')),
        token_id text,
        approved_at bigint,
        consumed_at bigint
      );
      CREATE INDEX approval_requests_newest ON ${s}.approval_requests (created_at DESC, request_id COLLATE "C" DESC);

      CREATE TABLE ${s}.decisions (
        request_id text NOT NULL REFERENCES ${s}.approval_requests (request_id),
        position integer NOT NULL,
        approver text NOT NULL,
        decision text NOT NULL CHECK (decision IN ('approve', 'deny')),
        reason text,
        at bigint NOT NULL,
        edited_proposal_id text,
        PRIMARY KEY (request_id, approver),
        UNIQUE (request_id, position)
      );

      -- json, not jsonb: the event text is kept as written, so a record reads back
      -- exactly as it was hashed (key order, absent fields stay absent).
      CREATE TABLE ${s}.audit_records (
        seq bigint PRIMARY KEY CHECK (seq >= 1),
        prev_hash text NOT NULL,
        hash text NOT NULL UNIQUE,
        event json NOT NULL
      );
    `,
  },
  {
    version: 2,
    name: 'run ownership',
    // A run belongs to the agent that recorded its first call; the primary key makes
    // "first" atomic across replicas. Runs recorded before this migration belong to the
    // in-process default owner ('in-process'): agents over HTTP no longer see them (fail closed).
    sql: (s) => `
      CREATE TABLE ${s}.runs (
        run_id text PRIMARY KEY,
        agent text NOT NULL,
        created_at bigint NOT NULL
      );
      ALTER TABLE ${s}.proposals ADD COLUMN agent text NOT NULL DEFAULT 'in-process';
      ALTER TABLE ${s}.proposals ALTER COLUMN agent DROP DEFAULT;
      INSERT INTO ${s}.runs (run_id, agent, created_at)
        SELECT run_id, 'in-process', MIN(created_at) FROM ${s}.proposals GROUP BY run_id;
    `,
  },
  {
    version: 3,
    name: 'revoked login sessions',
    sql: (s) => `
      -- Logged-out sessions until their own expiry, so logout holds across restarts and replicas.
      CREATE TABLE ${s}.revoked_sessions (
        session_id text PRIMARY KEY,
        expires_at bigint NOT NULL
      );
      CREATE INDEX revoked_sessions_expiry ON ${s}.revoked_sessions (expires_at);
    `,
  },
  {
    version: 4,
    name: 'tool definitions and pins',
    sql: (s) => `
      -- Each definition as first seen, by the SHA-256 of its canonical text (text, kept as written).
      CREATE TABLE ${s}.tool_definitions (
        digest text PRIMARY KEY,
        definition text NOT NULL,
        first_seen_at bigint NOT NULL
      );
      CREATE TABLE ${s}.tool_pins (
        tool_name text PRIMARY KEY,
        status text NOT NULL CHECK (status IN ('trusted', 'changed', 'disabled')),
        trusted_digest text,
        pending_digest text,
        updated_at bigint NOT NULL
      );
      -- Tools agents run themselves; only the first registering agent may change one.
      CREATE TABLE ${s}.tool_registrations (
        tool_name text PRIMARY KEY,
        definition_digest text NOT NULL,
        agent text NOT NULL,
        updated_at bigint NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: 'result projections',
    // CASA check 5: the digest of each form of a result a runtime may relay to the model
    // (JSON object text: projection name -> SHA-256 hex), written once with the result.
    // Results recorded before this migration keep NULL and are checked by result_digest alone.
    sql: (s) => `
      ALTER TABLE ${s}.proposals ADD COLUMN result_projections text;
    `,
  },
  {
    version: 6,
    name: 'audit records without a hash index',
    // Nothing looks a record up by its hash; its UNIQUE index cost every append a write
    // (and WAL) to a random B-tree page. The chain guards hashes (each covers its seq and
    // the previous hash; verifyChain recomputes them); seq stays the primary key.
    sql: (s) => `
      ALTER TABLE ${s}.audit_records DROP CONSTRAINT IF EXISTS audit_records_hash_key;
    `,
  },
  {
    version: 7,
    name: 'edited approval requests',
    // Approve-with-edits closes the original request as `edited` (it was stored as
    // `denied`, which read like a real deny). Requests an edit closed before this
    // migration become `edited`.
    sql: (s) => `
      ALTER TABLE ${s}.approval_requests DROP CONSTRAINT IF EXISTS approval_requests_status_check;
      ALTER TABLE ${s}.approval_requests ADD CONSTRAINT approval_requests_status_check
        CHECK (status IN ('pending', 'approved', 'denied', 'revoked', 'consumed', 'edited'));
      UPDATE ${s}.approval_requests SET status = 'edited'
        WHERE status = 'denied' AND request_id IN (SELECT request_id FROM ${s}.decisions WHERE edited_proposal_id IS NOT NULL);
    `,
  },
  {
    version: 8,
    name: 'passkey-signed approvals',
    // A request opened under `approval: { passkey: required }` keeps the rule; each decision
    // keeps the approver's verified WebAuthn assertion; approvers' registered passkeys.
    // A removed passkey keeps its row (removed_at) so audit verify can still check what it signed.
    sql: (s) => `
      ALTER TABLE ${s}.approval_requests ADD COLUMN passkey text CHECK (passkey IN ('required'));
      ALTER TABLE ${s}.decisions ADD COLUMN passkey jsonb;
      CREATE TABLE ${s}.passkey_credentials (
        credential_id text PRIMARY KEY,
        approver text NOT NULL,
        public_key text NOT NULL,
        counter bigint NOT NULL CHECK (counter >= 0),
        label text NOT NULL,
        transports jsonb,
        created_at bigint NOT NULL,
        last_used_at bigint,
        removed_at bigint
      );
      CREATE INDEX passkey_credentials_approver ON ${s}.passkey_credentials (approver, created_at);
    `,
  },
  {
    version: 9,
    name: 'proposal context and rule description',
    // For the approver's page: what the agent said about a call (untrusted, bounded by the
    // gate) and the human description of the rule that asked for approval. NULL when absent.
    sql: (s) => `
      ALTER TABLE ${s}.proposals ADD COLUMN context text;
      ALTER TABLE ${s}.approval_requests ADD COLUMN rule_description text;
    `,
  },
  {
    version: 10,
    name: 'room on proposal pages for their updates',
    // Every call updates its proposal row twice (consume, result), changing no indexed
    // column. On a page packed full by inserts the new version lands on another page and
    // both indexes (primary key, run + call id) get a new entry; with half of each page
    // left free the update stays on its page (HOT) and no index is touched. Measured at
    // 16 clients: HOT updates 27-81% → 91-95%, WAL per round trip -17%. Applies to pages
    // allocated from now on; no rewrite, and no lock that blocks reads or writes.
    sql: (s) => `
      ALTER TABLE ${s}.proposals SET (fillfactor = 50);
    `,
  },
  {
    version: 11,
    name: 'passkey ceremony and public key lookups',
    // The registration ceremony (its WebAuthn challenge) each passkey was added on: one
    // ceremony adds one passkey, compared by the challenge, never by two replicas' clocks.
    // NULL for passkeys added before. The public key index serves the one-key-one-credential check.
    sql: (s) => `
      ALTER TABLE ${s}.passkey_credentials ADD COLUMN ceremony text;
      CREATE INDEX passkey_credentials_ceremony ON ${s}.passkey_credentials (approver, ceremony);
      CREATE INDEX passkey_credentials_public_key ON ${s}.passkey_credentials (public_key);
    `,
  },
  {
    version: 12,
    name: 'refusals recorded for calls',
    // The digest of each refusal text an integration gave for a call that never ran (the MCP
    // gateway's answer): a runtime relaying exactly that text back is recognised by the ledger.
    sql: (s) => `
      CREATE TABLE ${s}.call_refusals (
        proposal_id text NOT NULL REFERENCES ${s}.proposals (proposal_id),
        text_digest text NOT NULL,
        recorded_at bigint NOT NULL,
        PRIMARY KEY (proposal_id, text_digest)
      );
    `,
  },
  {
    version: 13,
    name: 'definition review registrant',
    // A definition review's registering agent gets its own column; it was kept in the review
    // record's `context`, which is for an agent's words about its own call. Review records are
    // the ones the gate writes as agent countersign:definitions (definition-review.ts).
    sql: (s) => `
      ALTER TABLE ${s}.proposals ADD COLUMN registered_by text;
      UPDATE ${s}.proposals SET registered_by = context, context = NULL
        WHERE agent = 'countersign:definitions' AND tool_name = 'countersign:definition-review' AND context IS NOT NULL;
    `,
  },
  {
    version: 14,
    name: 'calls the provider executed',
    // 'provider' for a hosted tool the model's provider ran before the call was recorded:
    // authorize refuses it, so nothing runs it a second time. NULL for every other call.
    sql: (s) => `
      ALTER TABLE ${s}.proposals ADD COLUMN executed_by text CHECK (executed_by IN ('provider'));
    `,
  },
];

/**
 * Creates the schema if needed and applies the migrations it lacks, in one
 * transaction holding an advisory lock: replicas starting together queue here and
 * each later one finds the work done; a failed migration changes nothing (DDL is
 * transactional in PostgreSQL). Returns the versions applied.
 */
export async function migrate(db: PgDatabase, schema: string, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const s = quoteSchema(schema);
  return db.transaction(async (query) => {
    await query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryLockKey(schema, 'migrate')]);
    await query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await query(`
      CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const { rows } = await query<{ current: number }>(
      `SELECT COALESCE(MAX(version), 0)::integer AS current FROM ${s}.schema_migrations`,
    );
    const current = rows[0]?.current ?? 0;
    const applied: number[] = [];
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await query(migration.sql(s));
      await query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
