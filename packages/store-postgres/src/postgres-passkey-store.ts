import type { AuditFor } from '@countersign/core/ledger';
import type { AddCredentialOptions, AddCredentialResult, EnrolAuthority, PasskeyCredential, PasskeyStore } from '@countersign/core/passkey';
import { passkeyFromRow } from '@countersign/core/store-kit';
import { AuditedBatch } from './audited-batch.ts';
import type { PgDatabase, Query } from './database.ts';
import { advisoryLockKey } from './lock-keys.ts';
import type { PostgresAuditLog } from './postgres-audit-log.ts';

/**
 * Registered passkeys in the store's schema: every replica, and `audit verify`, sees the
 * same keys. Given `auditLog`, an add or remove passed audit events runs in one
 * transaction with them (AuditedBatch): the chain's advisory lock first, so such writes
 * run one at a time across replicas and the authority read before the insert cannot be
 * raced by another audited registration; both land or neither does.
 */
export class PostgresPasskeyStore implements PasskeyStore {
  readonly #db: PgDatabase;
  readonly #sql: ReturnType<typeof passkeySql>;
  readonly auditLog: PostgresAuditLog | undefined;
  readonly #batch: AuditedBatch;
  readonly #schema: string;

  /** `schema` is already quoted. */
  constructor(db: PgDatabase, schema: string, auditLog?: PostgresAuditLog) {
    this.#db = db;
    this.#schema = schema;
    this.#sql = passkeySql(schema);
    this.auditLog = auditLog;
    this.#batch = new AuditedBatch(db, auditLog);
  }

  /** `run` in one transaction; with `audit`, under the chain's lock with the records it builds. */
  async #inTransaction<R>(run: (query: Query) => Promise<R>, audit: AuditFor<R> | undefined): Promise<R> {
    if (audit === undefined) return this.#db.transaction(run);
    // `alone`: it reads (authority), then writes on what it read.
    return this.#batch.submit<R>(async (query) => {
      const outcome = await run(query);
      return { outcome, events: audit(outcome) };
    }, 'alone');
  }

  async add(c: PasskeyCredential, options: AddCredentialOptions = {}): Promise<AddCredentialResult> {
    const insert = (query: Query) =>
      query(this.#sql.insert, [
        c.credentialId,
        c.approver,
        c.publicKey,
        c.counter,
        c.label,
        c.transports === undefined ? null : JSON.stringify(c.transports),
        c.createdAt,
        options.authority?.ceremony ?? null,
      ]);
    return this.#inTransaction(async (query): Promise<AddCredentialResult> => {
      if ((await query(this.#sql.byId, [c.credentialId])).rows.length > 0) return { ok: false, reason: 'credential_exists' };
      // One key, one credential, across approvers: a lock on the key first, so two adds of it cannot both find none.
      await query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryLockKey(this.#schema, `passkey-public-key:${c.publicKey}`)]);
      if ((await query(this.#sql.byPublicKey, [c.publicKey])).rows.length > 0) return { ok: false, reason: 'public_key_exists' };
      const refused = await this.#authorityProblem(query, c.approver, options.authority);
      if (refused !== undefined) return { ok: false, reason: refused };
      const { rowCount } = await insert(query);
      return rowCount === 1 ? { ok: true } : { ok: false, reason: 'credential_exists' };
    }, options.audit);
  }

  /**
   * Whether `authority` holds for `approver`. A transaction lock on the approver's passkeys
   * first (a read of no rows locks nothing), so of concurrent "first" registrations one
   * inserts and the others then see its row; the rows are locked too, so a removal of the
   * stepping-up passkey cannot commit between this read and the insert.
   */
  async #authorityProblem(
    query: Query,
    approver: string,
    authority: EnrolAuthority | undefined,
  ): Promise<'not_first' | 'authority_gone' | 'ceremony_spent' | undefined> {
    if (authority === undefined) return undefined;
    await query('SELECT pg_advisory_xact_lock($1::bigint)', [advisoryLockKey(this.#schema, `passkeys-of:${approver}`)]);
    const { rows } = await query(this.#sql.activeOf, [approver]);
    const active = rows.map((row) => String(row.credential_id));
    if (authority.by === 'first' && active.length > 0) return 'not_first';
    if (authority.by === 'passkey' && !active.includes(authority.credentialId)) return 'authority_gone';
    if (authority.ceremony === undefined) return undefined;
    // Under the approver's lock: of two registrations on one ceremony, the second sees the first.
    const spent = await query(this.#sql.onCeremony, [approver, authority.ceremony]);
    return spent.rows.length === 0 ? undefined : 'ceremony_spent';
  }

  async get(credentialId: string): Promise<PasskeyCredential | undefined> {
    const { rows } = await this.#db.read(this.#sql.byId, [credentialId]);
    return rows[0] === undefined ? undefined : passkeyFromRow(rows[0]);
  }

  async list(approver?: string | undefined): Promise<PasskeyCredential[]> {
    const { rows } = await this.#db.query(this.#sql.list, [approver ?? null]);
    return rows.map(passkeyFromRow);
  }

  async remove(approver: string, credentialId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean> {
    const remove = async (query: Query) => (await query(this.#sql.remove, [now, credentialId, approver])).rowCount === 1;
    return audit === undefined ? remove(this.#db.write) : this.#inTransaction(remove, audit);
  }

  async recordUse(credentialId: string, counter: number, at: number): Promise<boolean> {
    // One UPDATE: the row lock makes concurrent uses with one counter succeed once.
    const { rowCount } = await this.#db.write(this.#sql.recordUse, [counter, at, credentialId]);
    return rowCount === 1;
  }
}

function passkeySql(s: string) {
  return {
    insert: `
      INSERT INTO ${s}.passkey_credentials (credential_id, approver, public_key, counter, label, transports, created_at, ceremony)
      VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8) ON CONFLICT (credential_id) DO NOTHING`,
    byId: `SELECT * FROM ${s}.passkey_credentials WHERE credential_id = $1`,
    byPublicKey: `SELECT 1 FROM ${s}.passkey_credentials WHERE public_key = $1 LIMIT 1`,
    activeOf: `SELECT credential_id FROM ${s}.passkey_credentials WHERE approver = $1 AND removed_at IS NULL FOR UPDATE`,
    // Any passkey of the approver, removed or not, registered on this ceremony (see EnrolAuthority).
    onCeremony: `SELECT 1 FROM ${s}.passkey_credentials WHERE approver = $1 AND ceremony = $2 LIMIT 1`,
    list: `SELECT * FROM ${s}.passkey_credentials WHERE $1::text IS NULL OR approver = $1 ORDER BY created_at, credential_id COLLATE "C"`,
    remove: `UPDATE ${s}.passkey_credentials SET removed_at = $1 WHERE credential_id = $2 AND approver = $3 AND removed_at IS NULL`,
    // The counter rule of counterAdvances (core).
    recordUse: `
      UPDATE ${s}.passkey_credentials SET counter = $1, last_used_at = $2
      WHERE credential_id = $3 AND removed_at IS NULL AND ($1 > counter OR ($1 = 0 AND counter = 0))`,
  };
}
