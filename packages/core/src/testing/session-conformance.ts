import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRevocationStore } from '../session/types.ts';

export interface SessionRevocationHarness {
  store: SessionRevocationStore;
  /** A second handle on the same data (another connection, as a restart or replica sees it), if the store can have one. */
  reopen?: () => Promise<SessionRevocationStore>;
  cleanup?: () => Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
// Random ids, so suites can share a persistent database.
const sid = () => randomBytes(18).toString('base64url');

/** The behaviour every SessionRevocationStore must have (memory, SQLite, Postgres). */
export function runSessionRevocationConformance(name: string, open: () => Promise<SessionRevocationHarness>): void {
  describe(`SessionRevocationStore conformance: ${name}`, () => {
    let harness: SessionRevocationHarness;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => {
      await harness.cleanup?.();
    });

    it('a session is not revoked until revoke, then is until its expiry', async () => {
      const id = sid();
      expect(await harness.store.isRevoked(id, T0)).toBe(false);
      await harness.store.revoke(id, T0 + 60_000, T0);
      expect(await harness.store.isRevoked(id, T0)).toBe(true);
      expect(await harness.store.isRevoked(id, T0 + 59_999)).toBe(true);
      // After its own expiry the cookie is refused anyway; the record may go.
      expect(await harness.store.isRevoked(id, T0 + 60_000)).toBe(false);
    });

    it('revoking one session leaves the others alone, even ids that share a prefix', async () => {
      const id = sid();
      await harness.store.revoke(id, T0 + 60_000, T0);
      expect(await harness.store.isRevoked(`${id}x`, T0)).toBe(false);
      expect(await harness.store.isRevoked(id.slice(0, -1), T0)).toBe(false);
      expect(await harness.store.isRevoked(id.toUpperCase() === id ? id.toLowerCase() : id.toUpperCase(), T0)).toBe(false);
    });

    it('revoking twice is harmless and keeps the later expiry', async () => {
      const id = sid();
      await harness.store.revoke(id, T0 + 60_000, T0);
      await harness.store.revoke(id, T0 + 30_000, T0 + 1);
      expect(await harness.store.isRevoked(id, T0 + 45_000)).toBe(true);
    });

    it('expired records are purged without disturbing live ones', async () => {
      const old = sid();
      const live = sid();
      await harness.store.revoke(old, T0 + 10, T0);
      await harness.store.revoke(live, T0 + 600_000, T0 + 20);
      expect(await harness.store.isRevoked(old, T0 + 20)).toBe(false);
      expect(await harness.store.isRevoked(live, T0 + 20)).toBe(true);
    });

    it('a revocation is seen through another handle on the same store (restart, replica)', async (context) => {
      if (harness.reopen === undefined) return context.skip();
      const id = sid();
      await harness.store.revoke(id, T0 + 60_000, T0);
      const other = await harness.reopen();
      expect(await other.isRevoked(id, T0)).toBe(true);
    });
  });
}
