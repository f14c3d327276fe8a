import type { SessionRevocationStore } from '@countersign/core/session';
import type { SqliteConnection } from './connection.ts';

const PURGE = 'DELETE FROM revoked_sessions WHERE expires_at <= ?';
const UPSERT = `
  INSERT INTO revoked_sessions (session_id, expires_at) VALUES (?, ?)
  ON CONFLICT (session_id) DO UPDATE SET expires_at = MAX(expires_at, excluded.expires_at)`;
const IS_REVOKED = 'SELECT 1 AS revoked FROM revoked_sessions WHERE session_id = ? AND expires_at > ?';

/** Ended login sessions in the store's SQLite file (shared with the ledger's connection and its group commit). */
export class SqliteSessionRevocations implements SessionRevocationStore {
  readonly #conn: SqliteConnection;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async revoke(sessionId: string, expiresAt: number, now: number): Promise<void> {
    await this.#conn.write(() => {
      // Logouts are rare; purging here keeps the table to the sessions still alive.
      this.#conn.statement(PURGE).run(now);
      this.#conn.statement(UPSERT).run(sessionId, expiresAt);
    });
  }

  async isRevoked(sessionId: string, now: number): Promise<boolean> {
    return this.#conn.read(() => this.#conn.statement(IS_REVOKED).get(sessionId, now) !== undefined);
  }
}
