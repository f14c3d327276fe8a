import type { AuditFor } from '@countersign/core/ledger';
import type { AddCredentialOptions, AddCredentialResult, EnrolAuthority, PasskeyCredential, PasskeyStore } from '@countersign/core/passkey';
import { passkeyFromRow } from '@countersign/core/store-kit';
import type { SqliteConnection } from './connection.ts';
import { auditedWrite } from './audited-write.ts';
import type { SqliteAuditLog } from './sqlite-audit-log.ts';

const INSERT = `
  INSERT INTO passkey_credentials (credential_id, approver, public_key, counter, label, transports, created_at, ceremony)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (credential_id) DO NOTHING`;
const ORDER = 'ORDER BY created_at, credential_id';
const EXISTS = 'SELECT 1 FROM passkey_credentials WHERE credential_id = ?';
const KEY_EXISTS = 'SELECT 1 FROM passkey_credentials WHERE public_key = ? LIMIT 1';
const ACTIVE_OF = 'SELECT credential_id FROM passkey_credentials WHERE approver = ? AND removed_at IS NULL';
// Any passkey of the approver, removed or not, registered on this ceremony (see EnrolAuthority).
const ON_CEREMONY = 'SELECT 1 FROM passkey_credentials WHERE approver = ? AND ceremony = ? LIMIT 1';
// The counter rule of counterAdvances (core), as one compare-and-set.
const RECORD_USE = `
  UPDATE passkey_credentials SET counter = ?, last_used_at = ?
  WHERE credential_id = ? AND removed_at IS NULL AND (? > counter OR (? = 0 AND counter = 0))`;

/**
 * Registered passkeys in the store's SQLite file (shared with the ledger's connection).
 * Given `auditLog` (the store's log on the same connection), an add or remove passed
 * audit events appends them in its own write transaction (BEGIN IMMEDIATE, so the
 * authority read and the insert see no other writer in between): both land or neither.
 */
export class SqlitePasskeyStore implements PasskeyStore {
  readonly #conn: SqliteConnection;
  readonly auditLog: SqliteAuditLog | undefined;

  constructor(conn: SqliteConnection, auditLog?: SqliteAuditLog) {
    this.#conn = conn;
    this.auditLog = auditLog;
  }

  /** `run` as one write, with the records `audit` builds from its outcome appended in the same transaction. */
  #write<R>(run: () => R, audit: AuditFor<R> | undefined): Promise<R> {
    return auditedWrite(this.#conn, this.auditLog, 'SqlitePasskeyStore', run, audit);
  }

  async add(c: PasskeyCredential, options: AddCredentialOptions = {}): Promise<AddCredentialResult> {
    return this.#write((): AddCredentialResult => {
      if (this.#conn.statement(EXISTS).get(c.credentialId) !== undefined) return { ok: false, reason: 'credential_exists' };
      if (this.#conn.statement(KEY_EXISTS).get(c.publicKey) !== undefined) return { ok: false, reason: 'public_key_exists' };
      const refused = this.#authorityProblem(c.approver, options.authority);
      if (refused !== undefined) return { ok: false, reason: refused };
      const changes = this.#conn
        .statement(INSERT)
        .run(c.credentialId, c.approver, c.publicKey, c.counter, c.label, c.transports === undefined ? null : JSON.stringify(c.transports), c.createdAt, options.authority?.ceremony ?? null).changes;
      return Number(changes) === 1 ? { ok: true } : { ok: false, reason: 'credential_exists' };
    }, options.audit);
  }

  /** Inside the write transaction: whether `authority` still holds for `approver`. */
  #authorityProblem(approver: string, authority: EnrolAuthority | undefined): 'not_first' | 'authority_gone' | 'ceremony_spent' | undefined {
    if (authority === undefined) return undefined;
    const active = this.#conn.statement(ACTIVE_OF).all(approver).map((row) => String(row.credential_id));
    if (authority.by === 'first' && active.length > 0) return 'not_first';
    if (authority.by === 'passkey' && !active.includes(authority.credentialId)) return 'authority_gone';
    if (authority.ceremony === undefined) return undefined;
    return this.#conn.statement(ON_CEREMONY).get(approver, authority.ceremony) === undefined ? undefined : 'ceremony_spent';
  }

  async get(credentialId: string): Promise<PasskeyCredential | undefined> {
    return this.#conn.read(() => {
      const row = this.#conn.statement('SELECT * FROM passkey_credentials WHERE credential_id = ?').get(credentialId);
      return row === undefined ? undefined : passkeyFromRow(row);
    });
  }

  async list(approver?: string | undefined): Promise<PasskeyCredential[]> {
    return this.#conn.read(() => {
      const rows =
        approver === undefined
          ? this.#conn.statement(`SELECT * FROM passkey_credentials ${ORDER}`).all()
          : this.#conn.statement(`SELECT * FROM passkey_credentials WHERE approver = ? ${ORDER}`).all(approver);
      return rows.map(passkeyFromRow);
    });
  }

  async remove(approver: string, credentialId: string, now: number, audit?: AuditFor<boolean>): Promise<boolean> {
    return this.#write(
      () =>
        Number(
          this.#conn
            .statement('UPDATE passkey_credentials SET removed_at = ? WHERE credential_id = ? AND approver = ? AND removed_at IS NULL')
            .run(now, credentialId, approver).changes,
        ) === 1,
      audit,
    );
  }

  async recordUse(credentialId: string, counter: number, at: number): Promise<boolean> {
    const changes = await this.#conn.write(() => this.#conn.statement(RECORD_USE).run(counter, at, credentialId, counter, counter).changes);
    return Number(changes) === 1;
  }
}
