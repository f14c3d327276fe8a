import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registrationEvent, removalEvent } from '../passkey/change-events.ts';
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
  return { credentialId: rid(), approver: `approver-${rid()}`, publicKey: `pk-${rid()}`, counter: 0, label: 'laptop', createdAt: T0, ...overrides };
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
      expect(await harness.store.add({ ...c, approver: 'mallory', publicKey: `pk-${rid()}` })).toEqual({ ok: false, reason: 'credential_exists' });
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

    it('authority "first" holds only while the approver has no active passkey, checked in the write', async () => {
      const approver = `approver-${rid()}`;
      const first = credential({ approver });
      expect(await harness.store.add(first, { authority: { by: 'first' } })).toEqual({ ok: true });
      const second = credential({ approver });
      expect(await harness.store.add(second, { authority: { by: 'first' } })).toEqual({ ok: false, reason: 'not_first' });
      expect(await harness.store.get(second.credentialId)).toBeUndefined();
      // Another approver's passkeys do not count; a removed one does not either.
      expect(await harness.store.add(credential(), { authority: { by: 'first' } })).toEqual({ ok: true });
      await harness.store.remove(approver, first.credentialId, T0 + 1);
      expect(await harness.store.add(second, { authority: { by: 'first' } })).toEqual({ ok: true });
    });

    it('of concurrent "first" registrations of one approver exactly one is stored', async () => {
      const approver = `approver-${rid()}`;
      const results = await Promise.all(Array.from({ length: 8 }, () => harness.store.add(credential({ approver }), { authority: { by: 'first' } })));
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok)).toEqual(Array.from({ length: 7 }, () => ({ ok: false, reason: 'not_first' })));
      expect(await harness.store.list(approver)).toHaveLength(1);
    });

    it('authority "passkey" holds only for an active passkey of the same approver', async () => {
      const approver = `approver-${rid()}`;
      const own = credential({ approver });
      const other = credential();
      await harness.store.add(own);
      await harness.store.add(other);
      const next = credential({ approver });
      expect(await harness.store.add(next, { authority: { by: 'passkey', credentialId: other.credentialId, ceremony: rid() } })).toEqual({ ok: false, reason: 'authority_gone' });
      expect(await harness.store.add(next, { authority: { by: 'passkey', credentialId: rid(), ceremony: rid() } })).toEqual({ ok: false, reason: 'authority_gone' });
      expect(await harness.store.get(next.credentialId)).toBeUndefined();
      expect(await harness.store.add(next, { authority: { by: 'passkey', credentialId: own.credentialId, ceremony: rid() } })).toEqual({ ok: true });
      await harness.store.remove(approver, own.credentialId, T0 + 1);
      expect(await harness.store.add(credential({ approver }), { authority: { by: 'passkey', credentialId: own.credentialId, ceremony: rid() } })).toEqual({ ok: false, reason: 'authority_gone' });
    });

    it('a ceremony registers one passkey: a second add on it, after or alongside the first, is refused whatever the timestamps', async () => {
      const approver = `approver-${rid()}`;
      const own = credential({ approver, createdAt: T0 });
      await harness.store.add(own);
      const authority = { by: 'passkey' as const, credentialId: own.credentialId, ceremony: rid() };
      expect(await harness.store.add(credential({ approver, createdAt: T0 + 20 }), { authority })).toEqual({ ok: true });
      // The same step-up replayed (an authenticator that does not count signs the same bytes),
      // stamped EARLIER by a replica whose clock is behind: still the same ceremony, still refused.
      const replayed = credential({ approver, createdAt: T0 - 30_000 });
      expect(await harness.store.add(replayed, { authority })).toEqual({ ok: false, reason: 'ceremony_spent' });
      expect(await harness.store.get(replayed.credentialId)).toBeUndefined();
      // A ceremony a "first" registration used is spent too.
      const firstCeremony = rid();
      const other = `approver-${rid()}`;
      const first = credential({ approver: other });
      expect(await harness.store.add(first, { authority: { by: 'first', ceremony: firstCeremony } })).toEqual({ ok: true });
      expect(await harness.store.add(credential({ approver: other }), { authority: { by: 'passkey', credentialId: first.credentialId, ceremony: firstCeremony } })).toEqual({
        ok: false,
        reason: 'ceremony_spent',
      });
      // Concurrent registrations on one fresh ceremony: exactly one lands.
      const fresh = { ...authority, ceremony: rid() };
      const raced = await Promise.all(Array.from({ length: 6 }, () => harness.store.add(credential({ approver, createdAt: T0 + 50 }), { authority: fresh })));
      expect(raced.filter((r) => r.ok)).toHaveLength(1);
      expect(raced.filter((r) => !r.ok)).toEqual(Array.from({ length: 5 }, () => ({ ok: false, reason: 'ceremony_spent' })));
      expect((await harness.store.list(approver)).filter((c) => c.createdAt >= T0 + 50)).toHaveLength(1);
    });

    it('a public key registered once is refused a second time, under any credential id and any approver, removed or not', async () => {
      const c = credential();
      await harness.store.add(c, { authority: { by: 'first' } });
      const twin = credential({ publicKey: c.publicKey });
      expect(await harness.store.add(twin, { authority: { by: 'first' } })).toEqual({ ok: false, reason: 'public_key_exists' });
      expect(await harness.store.add({ ...twin, approver: c.approver })).toEqual({ ok: false, reason: 'public_key_exists' });
      await harness.store.remove(c.approver, c.credentialId, T0 + 1);
      expect(await harness.store.add(twin)).toEqual({ ok: false, reason: 'public_key_exists' });
      expect(await harness.store.get(twin.credentialId)).toBeUndefined();
      // Concurrent adds of one key by different approvers: exactly one lands.
      const key = `pk-${rid()}`;
      const raced = await Promise.all(Array.from({ length: 4 }, () => harness.store.add(credential({ publicKey: key }), { authority: { by: 'first' } })));
      expect(raced.filter((r) => r.ok)).toHaveLength(1);
      expect(raced.filter((r) => !r.ok)).toEqual(Array.from({ length: 3 }, () => ({ ok: false, reason: 'public_key_exists' })));
    });

    it('an audited add or remove commits its records with the change, and a failing record leaves no change', async (context) => {
      const log = harness.store.auditLog;
      if (log === undefined) return context.skip();
      const c = credential();
      const event = registrationEvent(c, { challenge: 'AAAA', authorizedBy: 'first' });
      expect(await harness.store.add(c, { authority: { by: 'first' }, audit: (r) => (r.ok ? [event] : []) })).toEqual({ ok: true });
      const head = await log.head();
      const [registered] = await log.read({ afterSeq: (head?.seq ?? 1) - 1 });
      expect(registered).toMatchObject({ type: 'passkey_registered', actor: c.approver, detail: { credentialId: c.credentialId, publicKey: c.publicKey } });
      // An audit step that throws (or builds an invalid event) rolls the whole write back.
      const failing = credential();
      await expect(
        harness.store.add(failing, {
          audit: () => {
            throw new Error('audit append failed');
          },
        }),
      ).rejects.toThrow();
      await expect(harness.store.add(failing, { audit: () => [{ ...event, type: 'not-an-event' as never }] })).rejects.toThrow();
      expect(await harness.store.get(failing.credentialId)).toBeUndefined();
      await expect(harness.store.remove(c.approver, c.credentialId, T0 + 1, () => [{ ...event, at: Number.NaN }])).rejects.toThrow();
      expect((await harness.store.get(c.credentialId))?.removedAt).toBeUndefined();
      expect((await log.head())?.seq).toBe(head?.seq);
      const removed = removalEvent({ credentialId: c.credentialId, approver: c.approver, removedBy: 'operator' }, T0 + 2);
      expect(await harness.store.remove(c.approver, c.credentialId, T0 + 2, (ok) => (ok ? [removed] : []))).toBe(true);
      expect((await log.read({ afterSeq: head?.seq ?? 0 })).map((r) => r.type)).toEqual(['passkey_removed']);
      expect(await harness.store.remove(c.approver, c.credentialId, T0 + 3, (ok) => (ok ? [removed] : []))).toBe(false);
      expect((await log.head())?.seq).toBe((head?.seq ?? 0) + 1);
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
