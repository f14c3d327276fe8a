import { MemoryAuditLog } from '@countersign/core/audit';
import { type EnrolInput, enrolPasskey, MemoryPasskeyStore } from '@countersign/core/passkey';
import { describe, expect, it } from 'vitest';
import { webauthnVerifier } from './webauthn-verifier.ts';
import { isRegistrationChallenge, REGISTRATION_TTL_MS, registerPasskey, registrationChallenge, registrationKey } from './registration.ts';

const key = registrationKey('a session secret of at least thirty-two bytes');

describe('registration challenges: stateless, bound to one approver, short-lived', () => {
  it('accepts its own challenge for the approver it was made for, until its deadline', () => {
    const challenge = registrationChallenge(key, 'fiona', 1_000);
    expect(isRegistrationChallenge(key, 'fiona', challenge, 1_000)).toBe(true);
    expect(isRegistrationChallenge(key, 'fiona', challenge, 1_000 + REGISTRATION_TTL_MS - 1)).toBe(true);
    expect(isRegistrationChallenge(key, 'fiona', challenge, 1_000 + REGISTRATION_TTL_MS)).toBe(false);
  });

  it('refuses it for another approver, under another key, altered or truncated', () => {
    const challenge = registrationChallenge(key, 'fiona', 1_000);
    expect(isRegistrationChallenge(key, 'mallory', challenge, 1_000)).toBe(false);
    expect(isRegistrationChallenge(registrationKey('another secret, also thirty-two bytes long'), 'fiona', challenge, 1_000)).toBe(false);
    const bytes = Buffer.from(challenge, 'base64url');
    bytes[20] = (bytes[20] ?? 0) ^ 1; // a later deadline
    expect(isRegistrationChallenge(key, 'fiona', bytes.toString('base64url'), 1_000)).toBe(false);
    expect(isRegistrationChallenge(key, 'fiona', challenge.slice(0, 40), 1_000)).toBe(false);
    expect(isRegistrationChallenge(key, 'fiona', '', 1_000)).toBe(false);
  });

  it('a junk registration response is a typed refusal and stores nothing', async () => {
    const audit = new MemoryAuditLog();
    const store = new MemoryPasskeyStore({ audit });
    const deps = { store, audit, verifier: webauthnVerifier(store, () => undefined) };
    const enrol = (input: EnrolInput) => enrolPasskey(deps, input);
    for (const response of [{}, { id: 'x', rawId: 'x', type: 'public-key', response: {} }, { id: 'x', response: { clientDataJSON: 'e30', attestationObject: 'oA' } }]) {
      const result = await registerPasskey({ enrol, rp: { rpId: 'localhost', origin: 'http://localhost' }, key, approver: 'fiona', label: 'x', response, now: 1 });
      expect(result).toMatchObject({ ok: false, reason: 'invalid_registration' });
    }
    expect(await store.list()).toEqual([]);
    expect(await audit.read()).toEqual([]);
  });
});
