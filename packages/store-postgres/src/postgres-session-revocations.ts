import type { SessionRevocationStore } from '@countersign/core/session';
import type { PgDatabase } from './database.ts';

/** Ended login sessions in the store's schema: every replica on the database sees a logout. */
export class PostgresSessionRevocations implements SessionRevocationStore {
  readonly #db: PgDatabase;
  readonly #purge: string;
  readonly #upsert: string;
  readonly #isRevoked: string;

  /** `schema` is already quoted. */
  constructor(db: PgDatabase, schema: string) {
    this.#db = db;
    this.#purge = `DELETE FROM ${schema}.revoked_sessions WHERE expires_at <= $1`;
    this.#upsert = `INSERT INTO ${schema}.revoked_sessions (session_id, expires_at) VALUES ($1, $2)
      ON CONFLICT (session_id) DO UPDATE SET expires_at = GREATEST(${schema}.revoked_sessions.expires_at, EXCLUDED.expires_at)`;
    this.#isRevoked = `SELECT 1 AS revoked FROM ${schema}.revoked_sessions WHERE session_id = $1 AND expires_at > $2`;
  }

  async revoke(sessionId: string, expiresAt: number, now: number): Promise<void> {
    // Logouts are rare; purging here keeps the table to the sessions still alive.
    await this.#db.query(this.#purge, [now]);
    await this.#db.query(this.#upsert, [sessionId, expiresAt]);
  }

  async isRevoked(sessionId: string, now: number): Promise<boolean> {
    const { rows } = await this.#db.read(this.#isRevoked, [sessionId, now]);
    return rows.length > 0;
  }
}
