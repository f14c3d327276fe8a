/**
 * Ended login sessions, kept in the store the ledger lives in. A session cookie is
 * signed and carries its own expiry, so logging out can only work by remembering the
 * session id until that expiry: in the store, the logout holds across restarts and for
 * every replica sharing the store, not just in the process that saw it.
 *
 * Implementations throw LedgerError('store_unavailable') on an outage; callers must then
 * refuse the session (fail closed), never treat it as not revoked.
 */
export interface SessionRevocationStore {
  /**
   * Records that `sessionId` ended. `expiresAt` (ms since the epoch) is the session's own
   * expiry: the record may be dropped after it, since the cookie is refused by then anyway.
   * Idempotent: revoking twice keeps the later of the two expiries. `now` lets an
   * implementation purge records that expired.
   */
  revoke(sessionId: string, expiresAt: number, now: number): Promise<void>;
  /** Whether `sessionId` was revoked and its record has not expired at `now`. */
  isRevoked(sessionId: string, now: number): Promise<boolean>;
}
