import type { AddCredentialResult, PasskeyCredential, PasskeyStore } from '@countersign/core/passkey';
import { passkeyFromRow } from '@countersign/core/store-kit';
import type { SqliteConnection } from './connection.ts';

const INSERT = `
  INSERT INTO passkey_credentials (credential_id, approver, public_key, counter, label, transports, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (credential_id) DO NOTHING`;
const ORDER = 'ORDER BY created_at, credential_id';
// The counter rule of counterAdvances (core), as one compare-and-set.
const RECORD_USE = `
  UPDATE passkey_credentials SET counter = ?, last_used_at = ?
  WHERE credential_id = ? AND removed_at IS NULL AND (? > counter OR (? = 0 AND counter = 0))`;

/** Registered passkeys in the store's SQLite file (shared with the ledger's connection). */
export class SqlitePasskeyStore implements PasskeyStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async add(c: PasskeyCredential): Promise<AddCredentialResult> {
    const changes = await this.#conn.write(
      () =>
        this.#conn
          .statement(INSERT)
          .run(c.credentialId, c.approver, c.publicKey, c.counter, c.label, c.transports === undefined ? null : JSON.stringify(c.transports), c.createdAt)
          .changes,
    );
    return Number(changes) === 1 ? { ok: true } : { ok: false, reason: 'credential_exists' };
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

  async remove(approver: string, credentialId: string, now: number): Promise<boolean> {
    const changes = await this.#conn.write(
      () =>
        this.#conn
          .statement('UPDATE passkey_credentials SET removed_at = ? WHERE credential_id = ? AND approver = ? AND removed_at IS NULL')
          .run(now, credentialId, approver).changes,
    );
    return Number(changes) === 1;
  }

  async recordUse(credentialId: string, counter: number, at: number): Promise<boolean> {
    const changes = await this.#conn.write(() => this.#conn.statement(RECORD_USE).run(counter, at, credentialId, counter, counter).changes);
    return Number(changes) === 1;
  }
}
