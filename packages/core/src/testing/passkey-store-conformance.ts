import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PasskeyCredential, PasskeyStore } from '../passkey/types.ts';

export interface PasskeyStoreHarness {
  store: PasskeyStore;
  /** A second handle on the same data (another connection: a restart or a replica), if the store can have one. */
  reopen?: () => Promise<PasskeyStore>;
  cleanup?: () => Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
// Random ids, so suites can share a persistent database.
const rid = () => randomBytes(16).toString('base64url');

function credential(overrides: Partial<PasskeyCredential> = {}): PasskeyCredential {
  return { credentialId: rid(), approver: `approver-${rid()}`, publicKey: 'pQECAyYgASFYIA', counter: 0, label: 'laptop', createdAt: T0, ...overrides };
}

/** The behaviour every PasskeyStore must have (memory, SQLite, Postgres). */
export function runPasskeyStoreConformance(name: string, open: () => Promise<PasskeyStoreHarness>): void {
  describe(`PasskeyStore conformance: ${name}`, () => {
    let harness: PasskeyStoreHarness;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(async () => {
      await harness.cleanup?.();
    });

    it('adds, reads back exactly and lists one approver’s credentials oldest first', async () => {
      const approver = `approver-${rid()}`;
      const second = credential({ approver, createdAt: T0 + 2, transports: ['internal', 'hybrid'] });
      const first = credential({ approver, createdAt: T0 + 1, label: 'phone ☎' });
      expect(await harness.store.add(second)).toEqual({ ok: true });
      expect(await harness.store.add(first)).toEqual({ ok: true });
      await harness.store.add(credential());
      expect(await harness.store.get(second.credentialId)).toEqual(second);
      expect(await harness.store.list(approver)).toEqual([first, second]);
      expect((await harness.store.list()).length).toBeGreaterThanOrEqual(3);
      expect(await harness.store.get(rid())).toBeUndefined();
    });

    it('a credential id is registered once, to one approver: a second add (by anyone) changes nothing', async () => {
      const c = credential();
      await harness.store.add(c);
      expect(await harness.store.add({ ...c, approver: 'mallory', publicKey: 'AAAA' })).toEqual({ ok: false, reason: 'credential_exists' });
      expect(await harness.store.get(c.credentialId)).toEqual(c);
    });

    it('only the owner removes a credential; a removed one stays readable (for audit) but takes no use', async () => {
      const c = credential();
      await harness.store.add(c);
      expect(await harness.store.remove('mallory', c.credentialId, T0 + 5)).toBe(false);
      expect(await harness.store.remove(c.approver, rid(), T0 + 5)).toBe(false);
      expect(await harness.store.remove(c.approver, c.credentialId, T0 + 5)).toBe(true);
      expect(await harness.store.remove(c.approver, c.credentialId, T0 + 6)).toBe(false);
      expect(await harness.store.get(c.credentialId)).toEqual({ ...c, removedAt: T0 + 5 });
      expect(await harness.store.recordUse(c.credentialId, 1, T0 + 7)).toBe(false);
    });

    it('the signature counter only moves forward: a replayed counter is refused', async () => {
      const c = credential();
      await harness.store.add(c);
      expect(await harness.store.recordUse(c.credentialId, 3, T0 + 1)).toBe(true);
      expect(await harness.store.recordUse(c.credentialId, 3, T0 + 2)).toBe(false);
      expect(await harness.store.recordUse(c.credentialId, 2, T0 + 2)).toBe(false);
      expect(await harness.store.recordUse(c.credentialId, 0, T0 + 2)).toBe(false);
      expect(await harness.store.get(c.credentialId)).toMatchObject({ counter: 3, lastUsedAt: T0 + 1 });
      expect(await harness.store.recordUse(rid(), 9, T0)).toBe(false);
      // An authenticator that never counts (always 0) is allowed to stay at 0.
      const flat = credential();
      await harness.store.add(flat);
      expect(await harness.store.recordUse(flat.credentialId, 0, T0 + 1)).toBe(true);
      expect(await harness.store.recordUse(flat.credentialId, 0, T0 + 2)).toBe(true);
    });

    it('of concurrent uses with the same counter exactly one succeeds', async () => {
      const c = credential();
      await harness.store.add(c);
      const results = await Promise.all(Array.from({ length: 20 }, () => harness.store.recordUse(c.credentialId, 7, T0 + 1)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('a credential is seen through another handle on the same store (restart, replica)', async (context) => {
      if (harness.reopen === undefined) return context.skip();
      const c = credential();
      await harness.store.add(c);
      const other = await harness.reopen();
      expect(await other.get(c.credentialId)).toEqual(c);
    });
  });
}
