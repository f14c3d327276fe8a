import type { AuditLog } from '@countersign/core/audit';
import type { CountersignStore } from '@countersign/core/gate';
import type { LedgerStore } from '@countersign/core/ledger';
import type { SessionRevocationStore } from '@countersign/core/session';
import type { DefinitionStore } from '@countersign/core/catalog';
import type { PasskeyStore } from '@countersign/core/passkey';
import { Pool, type PoolConfig, types } from 'pg';
import { PgDatabase } from './database.ts';
import { ledgerSql } from './ledger-sql.ts';
import { migrate } from './migrations.ts';
import { PostgresAuditLog } from './postgres-audit-log.ts';
import { PostgresDefinitionStore } from './postgres-definition-store.ts';
import { PostgresLedger } from './postgres-ledger.ts';
import { PostgresSessionRevocations } from './postgres-session-revocations.ts';
import { PostgresPasskeyStore } from './postgres-passkey-store.ts';
import { quoteSchema } from './schema-name.ts';

export const DEFAULT_SCHEMA = 'countersign';

export interface PostgresStoreOptions {
  connectionString: string;
  /** Schema holding the tables; created if missing. Lower-case identifier. Default 'countersign'. */
  schema?: string | undefined;
  /** Extra pg.Pool settings (max, ssl, idleTimeoutMillis...); they override the defaults below. */
  pool?: Omit<PoolConfig, 'connectionString'> | undefined;
  /**
   * Server-side statement_timeout, and (plus a second) the client-side query
   * timeout, so a hung database or network surfaces as store_unavailable instead
   * of a request that never returns. Default 10000.
   */
  statementTimeoutMs?: number | undefined;
  /**
   * Open for reading only (audit verification, export): no CREATE SCHEMA, no
   * migration, and every session is READ ONLY. A schema that does not exist, or has
   * no tables yet, fails with PostgresOpenError instead of being created empty.
   */
  readOnly?: boolean | undefined;
}

/** Why a read-only open found nothing to read. */
export class PostgresOpenError extends Error {
  readonly code: 'no_such_schema' | 'not_initialized';
  constructor(code: PostgresOpenError['code'], message: string) {
    super(message);
    this.name = 'PostgresOpenError';
    this.code = code;
  }
}

/** A `CountersignStore` (give it to `createGate({ store })` whole), plus what this store adds. */
export interface PostgresStore extends CountersignStore {
  readonly ledger: LedgerStore;
  readonly audit: AuditLog;
  /** Logged-out login sessions, shared by every replica on this schema. */
  readonly sessions: SessionRevocationStore;
  /** Tool definitions by digest, pins and agent registrations, shared by every replica (pass to the gate as `definitions`). */
  readonly definitions: DefinitionStore;
  /** Approvers' registered passkeys, shared by every replica (passkey-signed approvals). */
  readonly passkeys: PasskeyStore;
  readonly schema: string;
  /** Ledger and audit transactions this process has committed so far (one group-committed audit batch counts once). */
  readonly durableCommits: () => number;
  /** Applies pending migrations (already done by openPostgresStore); returns the versions applied. */
  migrate(): Promise<number[]>;
  /** Ends the pool; later calls fail with store_unavailable. */
  close(): Promise<void>;
}

// bigint columns (times in ms, audit seq) as numbers: every value we store is a safe
// integer, and row mapping rejects anything that is not.
const INT8_OID = 20;
const poolTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : types.getTypeParser(oid, format)) as typeof types.getTypeParser,
};

/** The pool with our defaults (timeouts, int8 as numbers), wrapped as a PgDatabase. No migration. */
export function createDatabase(options: Omit<PostgresStoreOptions, 'schema'>): PgDatabase {
  const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
  const pool = new Pool({
    connectionTimeoutMillis: 5_000,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + 1_000,
    // A client that vanishes mid-transaction must not hold row or advisory locks for long.
    idle_in_transaction_session_timeout: statementTimeoutMs * 2,
    keepAlive: true,
    // Statements sent back to back on one connection go out without waiting for each
    // other's answers (AuditedBatch sends a batch's concurrent writes this way). They
    // still run one at a time, in order; code that awaits each statement is unaffected.
    pipeline: true,
    // Sent at connection start, so a role's or database's other default cannot apply: the
    // audit chain is hashed in SQL from text that must be the bytes core hashes.
    client_encoding: 'UTF8',
    ...options.pool,
    connectionString: options.connectionString,
    types: poolTypes,
  });
  // An idle pooled connection that dies emits 'error' on the pool; the pool has
  // already dropped it and the next query opens a fresh one. Without a listener
  // the process would crash on a database restart.
  pool.on('error', () => {});
  return new PgDatabase(pool);
}

/**
 * Opens a pool on `connectionString` and brings the schema up to date. Several
 * replicas may open the same database and schema at once; see README.md.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const quoted = quoteSchema(schema);
  const readOnly = options.readOnly === true;
  const db = createDatabase(
    readOnly ? { ...options, pool: { ...options.pool, options: `${options.pool?.options ?? ''} -c default_transaction_read_only=on`.trim() } } : options,
  );
  try {
    await (readOnly ? checkReadable(db, schema) : migrate(db, schema));
  } catch (error) {
    await db.close();
    throw error;
  }
  const audit = new PostgresAuditLog(db, quoted, schema);
  return {
    // One database: the ledger appends its audit records in its own transactions.
    ledger: new PostgresLedger(db, ledgerSql(quoted), audit),
    audit,
    sessions: new PostgresSessionRevocations(db, quoted),
    definitions: new PostgresDefinitionStore(db, quoted),
    passkeys: new PostgresPasskeyStore(db, quoted, audit),
    schema,
    durableCommits: () => db.commits,
    migrate: () => migrate(db, schema),
    close: () => db.close(),
  };
}

// A mistyped --pg-schema must read as an error, never as an empty, intact log.
async function checkReadable(db: PgDatabase, schema: string): Promise<void> {
  const found = await db.query<{ schema_exists: boolean; audit: string | null }>(
    'SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS schema_exists, to_regclass($2)::text AS audit',
    [schema, `${quoteSchema(schema)}.audit_records`],
  );
  const row = found.rows[0];
  if (row?.schema_exists !== true) throw new PostgresOpenError('no_such_schema', `no such schema "${schema}"`);
  if (row.audit === null) throw new PostgresOpenError('not_initialized', `schema "${schema}" has no countersign tables`);
}
