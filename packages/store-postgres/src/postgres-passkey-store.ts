import type { AddCredentialResult, PasskeyCredential, PasskeyStore } from '@countersign/core/passkey';
import { passkeyFromRow } from '@countersign/core/store-kit';
import type { PgDatabase } from './database.ts';

/** Registered passkeys in the store's schema: every replica, and `audit verify`, sees the same keys. */
export class PostgresPasskeyStore implements PasskeyStore {
  readonly #db: PgDatabase;
  readonly #sql: ReturnType<typeof passkeySql>;

  /** `schema` is already quoted. */
  constructor(db: PgDatabase, schema: string) {
    this.#db = db;
    this.#sql = passkeySql(schema);
  }

  async add(c: PasskeyCredential): Promise<AddCredentialResult> {
    const { rowCount } = await this.#db.write(this.#sql.insert, [
      c.credentialId,
      c.approver,
      c.publicKey,
      c.counter,
      c.label,
      c.transports === undefined ? null : JSON.stringify(c.transports),
      c.createdAt,
    ]);
    return rowCount === 1 ? { ok: true } : { ok: false, reason: 'credential_exists' };
  }

  async get(credentialId: string): Promise<PasskeyCredential | undefined> {
    const { rows } = await this.#db.read(this.#sql.byId, [credentialId]);
    return rows[0] === undefined ? undefined : passkeyFromRow(rows[0]);
  }

  async list(approver?: string | undefined): Promise<PasskeyCredential[]> {
    const { rows } = await this.#db.query(this.#sql.list, [approver ?? null]);
    return rows.map(passkeyFromRow);
  }

  async remove(approver: string, credentialId: string, now: number): Promise<boolean> {
    const { rowCount } = await this.#db.write(this.#sql.remove, [now, credentialId, approver]);
    return rowCount === 1;
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
      INSERT INTO ${s}.passkey_credentials (credential_id, approver, public_key, counter, label, transports, created_at)
      VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) ON CONFLICT (credential_id) DO NOTHING`,
    byId: `SELECT * FROM ${s}.passkey_credentials WHERE credential_id = $1`,
    list: `SELECT * FROM ${s}.passkey_credentials WHERE $1::text IS NULL OR approver = $1 ORDER BY created_at, credential_id COLLATE "C"`,
    remove: `UPDATE ${s}.passkey_credentials SET removed_at = $1 WHERE credential_id = $2 AND approver = $3 AND removed_at IS NULL`,
    // The counter rule of counterAdvances (core).
    recordUse: `
      UPDATE ${s}.passkey_credentials SET counter = $1, last_used_at = $2
      WHERE credential_id = $3 AND removed_at IS NULL AND ($1 > counter OR ($1 = 0 AND counter = 0))`,
  };
}
