import { describe, expect, it } from 'vitest';
import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import type { AuditLog } from '../audit/types.ts';
import { passkeyChangeChallenge, passkeyEnrolClaims, passkeyRemoveClaims } from './change-claims.ts';
import { passkeyChallenge, passkeyDecisionClaims } from './decision-claims.ts';
import { checkPasskeyEvidence } from './evidence-check.ts';
import { MemoryPasskeyStore } from './memory-passkey-store.ts';
import { enrolPasskey, removePasskey, removePasskeyAsOperator } from './passkey-changes.ts';
import { testDevice, testOfflineCheck, testVerifier } from './test-device.test-helper.ts';
import type { PasskeyCredential, PasskeyStore, PasskeyVerifier } from './types.ts';

const fionaLaptop = testDevice('fiona', 'fiona-laptop');
const fionaPhone = testDevice('fiona', 'fiona-phone');
const malloryKey = testDevice('fiona', 'mallory-key'); // a key Mallory made, enrolled in fiona's name
const malloryOwn = testDevice('mallory', 'mallory-own');
const devices = [fionaLaptop, fionaPhone, malloryKey, malloryOwn];

/** As the server's verifier: the credential must be an active passkey of this approver in the store. */
function storeVerifier(store: PasskeyStore): PasskeyVerifier {
  const inner = testVerifier(devices);
  return {
    async verify(input) {
      const stored = await store.get(input.assertion.credentialId);
      if (stored === undefined || stored.approver !== input.approver || stored.removedAt !== undefined) return { ok: false, reason: 'passkey_invalid', message: 'not one of your passkeys' };
      return inner.verify(input);
    },
  };
}

function credentialOf(device: ReturnType<typeof testDevice>, createdAt = 1): PasskeyCredential {
  return { credentialId: device.credentialId, approver: device.owner, publicKey: `pk-${device.credentialId}`, counter: 0, label: device.credentialId, createdAt };
}

function setup(atomic = true) {
  const audit = new MemoryAuditLog();
  const store = new MemoryPasskeyStore(atomic ? { audit } : {});
  const deps = { store, audit: audit as AuditLog, verifier: storeVerifier(store) };
  const enrolFor = (approver: string) => passkeyChangeChallenge(passkeyEnrolClaims(approver, 'reg-2'));
  return { audit, store, deps, enrolFor };
}

describe('passkey changes: the first on sign-in, every later change only with a step-up from an own passkey', () => {
  it('the first passkey needs only sign-in and is audited with its public key', async () => {
    const { audit, store, deps } = setup();
    expect(await enrolPasskey(deps, { credential: credentialOf(fionaLaptop), registrationChallenge: 'reg-1', algorithm: -7, now: 1 })).toEqual({ ok: true });
    expect((await store.list('fiona')).map((c) => c.credentialId)).toEqual(['fiona-laptop']);
    expect(await audit.read()).toEqual([
      expect.objectContaining({ type: 'passkey_registered', actor: 'fiona', detail: { credentialId: 'fiona-laptop', approver: 'fiona', publicKey: 'pk-fiona-laptop', algorithm: -7, challenge: 'reg-1', authorizedBy: 'first' } }),
    ]);
  });

  it('refuses a second registration without a step-up assertion: nothing stored, nothing audited', async () => {
    for (const atomic of [true, false]) {
      const { audit, store, deps } = setup(atomic);
      await enrolPasskey(deps, { credential: credentialOf(fionaLaptop), registrationChallenge: 'reg-1', now: 1 });
      // Mallory holds fiona's password and registers her own authenticator.
      expect(await enrolPasskey(deps, { credential: credentialOf(malloryKey, 2), registrationChallenge: 'reg-2', now: 2 })).toMatchObject({ ok: false, reason: 'step_up_required' });
      expect(await store.get('mallory-key')).toBeUndefined();
      expect((await audit.read()).map((r) => r.type)).toEqual(['passkey_registered']);
    }
  });

  it('refuses a step-up by ANOTHER approver’s passkey, and one made for another operation', async () => {
    const { audit, store, deps, enrolFor } = setup();
    await enrolPasskey(deps, { credential: credentialOf(fionaLaptop), registrationChallenge: 'reg-1', now: 1 });
    await enrolPasskey(deps, { credential: credentialOf(malloryOwn), registrationChallenge: 'reg-m', now: 1 });
    const attempt = (stepUp: ReturnType<typeof fionaLaptop.sign>) => enrolPasskey(deps, { credential: credentialOf(malloryKey, 2), registrationChallenge: 'reg-2', stepUp, now: 2 });
    // Mallory's own (genuine, active) passkey signs the right claims: not fiona's.
    expect(await attempt(malloryOwn.sign(enrolFor('fiona')))).toMatchObject({ ok: false, reason: 'step_up_invalid' });
    // Fiona's device signed something else: another registration ceremony, a removal, a decision.
    expect(await attempt(fionaLaptop.sign(passkeyChangeChallenge(passkeyEnrolClaims('fiona', 'reg-other'))))).toMatchObject({ ok: false, reason: 'step_up_invalid' });
    expect(await attempt(fionaLaptop.sign(passkeyChangeChallenge(passkeyRemoveClaims('fiona', 'fiona-laptop', 'reg-2'))))).toMatchObject({ ok: false, reason: 'step_up_invalid' });
    const decision = passkeyDecisionClaims(
      { runId: 'r', sessionId: 's', callId: 'c', toolName: 't', argsDigest: '0'.repeat(64), principal: 'p' },
      { requestId: 'reg-2', expiresAt: 9 },
      { approver: 'fiona', decision: 'approve' },
    );
    expect(await attempt(fionaLaptop.sign(passkeyChallenge(decision)))).toMatchObject({ ok: false, reason: 'step_up_invalid' });
    expect(await store.get('mallory-key')).toBeUndefined();
    expect((await audit.read()).map((r) => r.type)).toEqual(['passkey_registered', 'passkey_registered']);
    // Fiona's own device over exactly this registration: added, and the record names who allowed it.
    expect(await attempt(fionaLaptop.sign(enrolFor('fiona')))).toEqual({ ok: true });
    expect((await audit.read()).at(-1)).toMatchObject({ type: 'passkey_registered', detail: { authorizedBy: 'passkey', stepUp: { credentialId: 'fiona-laptop' } } });
  });

  it('a step-up adds ONE passkey: replayed for a second registration on the same ceremony, it is refused, nothing stored or audited', async () => {
    for (const atomic of [true, false]) {
      const { audit, store, deps, enrolFor } = setup(atomic);
      await enrolPasskey(deps, { credential: credentialOf(fionaLaptop), registrationChallenge: 'reg-1', now: 1 });
      // Fiona adds her phone; her laptop (an authenticator that does not count) confirms ceremony reg-2, begun at 2.
      const stepUp = fionaLaptop.sign(enrolFor('fiona'));
      expect(await enrolPasskey(deps, { credential: credentialOf(fionaPhone, 3), registrationChallenge: 'reg-2', stepUp, now: 3 })).toEqual({ ok: true });
      // Mallory (fiona's password, the captured step-up and challenge, a key that signs any clientDataJSON) replays it.
      const replay = await enrolPasskey(deps, { credential: credentialOf(malloryKey, 4), registrationChallenge: 'reg-2', stepUp, now: 4 });
      expect(replay).toMatchObject({ ok: false, reason: 'step_up_invalid' });
      expect(await store.get('mallory-key')).toBeUndefined();
      // Atomic: no record. Two steps (record first): a record of the attempt, never a usable key.
      if (atomic) expect((await audit.read()).map((r) => r.detail?.credentialId)).toEqual(['fiona-laptop', 'fiona-phone']);
    }
  });

  it('removal needs a step-up over that removal; an operator removes without one, audited as operator', async () => {
    const { audit, store, deps, enrolFor } = setup();
    await enrolPasskey(deps, { credential: credentialOf(fionaLaptop), registrationChallenge: 'reg-1', now: 1 });
    await enrolPasskey(deps, { credential: credentialOf(fionaPhone, 2), registrationChallenge: 'reg-2', stepUp: fionaLaptop.sign(enrolFor('fiona')), now: 2 });
    const remove = (stepUp?: ReturnType<typeof fionaLaptop.sign>) => removePasskey(deps, { approver: 'fiona', credentialId: 'fiona-phone', nonce: 'n-1', stepUp, now: 3 });
    expect(await remove()).toMatchObject({ ok: false, reason: 'step_up_required' });
    // Signed for removing another credential, or for an enrolment: refused.
    expect(await remove(fionaLaptop.sign(passkeyChangeChallenge(passkeyRemoveClaims('fiona', 'fiona-laptop', 'n-1'))))).toMatchObject({ ok: false, reason: 'step_up_invalid' });
    expect(await remove(fionaLaptop.sign(enrolFor('fiona')))).toMatchObject({ ok: false, reason: 'step_up_invalid' });
    expect((await store.get('fiona-phone'))?.removedAt).toBeUndefined();
    expect(await remove(fionaLaptop.sign(passkeyChangeChallenge(passkeyRemoveClaims('fiona', 'fiona-phone', 'n-1'))))).toEqual({ ok: true });
    expect((await store.get('fiona-phone'))?.removedAt).toBe(3);
    expect(await removePasskeyAsOperator(deps, { credentialId: 'fiona-laptop', now: 4 })).toEqual({ ok: true, approver: 'fiona' });
    expect(await removePasskeyAsOperator(deps, { credentialId: 'fiona-laptop', now: 5 })).toMatchObject({ ok: false, reason: 'not_found' });
    expect((await audit.read()).slice(-2)).toEqual([
      expect.objectContaining({ type: 'passkey_removed', actor: 'fiona', detail: expect.objectContaining({ credentialId: 'fiona-phone', removedBy: 'approver', nonce: 'n-1' }) }),
      expect.objectContaining({ type: 'passkey_removed', actor: 'operator', detail: { credentialId: 'fiona-laptop', approver: 'fiona', removedBy: 'operator' } }),
    ]);
    // The whole story holds offline, from the chain alone.
    expect(await checkPasskeyEvidence(await audit.read(), testOfflineCheck, { table: await store.list() })).toEqual({
      verified: 0,
      unnamedApprover: 0,
      registered: 2,
      firstRegistrations: 1,
      removed: 2,
      operatorRemovals: 1,
      reRegistrations: [],
      problems: [],
    });
    // Her next passkey is a first one again (the bootstrap limit): accepted, and listed for a person to confirm.
    expect(await enrolPasskey(deps, { credential: credentialOf(malloryKey, 6), registrationChallenge: 'reg-3', now: 6 })).toEqual({ ok: true });
    const again = await checkPasskeyEvidence(await audit.read(), testOfflineCheck, { table: await store.list() });
    expect(again).toMatchObject({ firstRegistrations: 2, reRegistrations: [{ approver: 'fiona', credentialId: 'mallory-key' }], problems: [] });
  });
});
