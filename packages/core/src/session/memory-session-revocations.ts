import type { SessionRevocationStore } from './types.ts';

/**
 * Session revocations in memory: for tests and for a server whose ledger is in memory too.
 * They last as long as the process, which is as long as such a ledger lasts.
 */
export class MemorySessionRevocations implements SessionRevocationStore {
  readonly #ended = new Map<string, number>();

  async revoke(sessionId: string, expiresAt: number, now: number): Promise<void> {
    for (const [sid, exp] of this.#ended) if (exp <= now) this.#ended.delete(sid);
    this.#ended.set(sessionId, Math.max(expiresAt, this.#ended.get(sessionId) ?? expiresAt));
  }

  async isRevoked(sessionId: string, now: number): Promise<boolean> {
    const expiresAt = this.#ended.get(sessionId);
    return expiresAt !== undefined && now < expiresAt;
  }
}
