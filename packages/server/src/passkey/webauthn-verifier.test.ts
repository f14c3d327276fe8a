import { MemoryPasskeyStore } from '@countersign/core/passkey';
import { describe, expect, it } from 'vitest';
import { softAuthenticator } from '../testing/soft-authenticator.ts';
import { relyingPartyFor } from './relying-party.ts';
import { offlineAssertionCheck, webauthnVerifier } from './webauthn-verifier.ts';

const RP = { rpId: 'localhost', origin: 'http://localhost' };
const challenge = new Uint8Array(32).fill(7);

async function setup() {
  const store = new MemoryPasskeyStore();
  const fiona = softAuthenticator('fiona');
  const mallory = softAuthenticator('mallory');
  await store.add(fiona.credential());
  await store.add(mallory.credential());
  return { store, fiona, mallory, verifier: webauthnVerifier(store, () => RP) };
}

describe('webauthnVerifier: what a passkey assertion must be to count', () => {
  it('accepts the approver’s own assertion over the expected challenge and records its counter', async () => {
    const { store, fiona, verifier } = await setup();
    const checked = await verifier.verify({ approver: 'fiona', assertion: fiona.assertion(challenge), challenge, now: 5 });
    expect(checked).toMatchObject({ ok: true, evidence: { credentialId: fiona.credentialId, rpId: 'localhost', origin: 'http://localhost' } });
    expect(await store.get(fiona.credentialId)).toMatchObject({ counter: 1, lastUsedAt: 5 });
  });

  it('refuses another challenge, another approver’s passkey, no user verification, another RP or origin, a bad signature', async () => {
    const { fiona, mallory, verifier } = await setup();
    const other = new Uint8Array(32).fill(8);
    const cases = [
      ['another challenge', 'fiona', fiona.assertion(other)],
      ['mallory’s passkey for fiona', 'fiona', mallory.assertion(challenge)],
      ['no user verification', 'fiona', fiona.assertion(challenge, { userVerified: false })],
      ['another RP id', 'fiona', fiona.assertion(challenge, { rpId: 'evil.example' })],
      ['another origin', 'fiona', fiona.assertion(challenge, { origin: 'http://evil.localhost' })],
      ['a flipped signature', 'fiona', { ...fiona.assertion(challenge), signature: fiona.assertion(other).signature }],
    ] as const;
    for (const [what, approver, assertion] of cases) {
      expect(await verifier.verify({ approver, assertion, challenge, now: 5 }), what).toMatchObject({ ok: false, reason: 'passkey_invalid' });
    }
  });

  it('refuses a replayed assertion (the counter does not advance) and a removed passkey', async () => {
    const { store, fiona, verifier } = await setup();
    const once = fiona.assertion(challenge);
    expect(await verifier.verify({ approver: 'fiona', assertion: once, challenge, now: 5 })).toMatchObject({ ok: true });
    expect(await verifier.verify({ approver: 'fiona', assertion: once, challenge, now: 6 })).toMatchObject({ ok: false, reason: 'passkey_invalid' });
    await store.remove('fiona', fiona.credentialId, 7);
    expect(await verifier.verify({ approver: 'fiona', assertion: fiona.assertion(challenge), challenge, now: 8 })).toMatchObject({ ok: false });
  });

  it('offline: checks the stored assertion again, counter aside, and only for its own challenge', async () => {
    const { fiona } = await setup();
    const assertion = fiona.assertion(challenge, { counter: 41 });
    const evidence = { ...assertion, ...RP };
    expect(await offlineAssertionCheck({ evidence, challenge, credential: fiona.credential() })).toEqual({ ok: true });
    expect(await offlineAssertionCheck({ evidence, challenge: new Uint8Array(32), credential: fiona.credential() })).toMatchObject({ ok: false });
  });
});

describe('relyingPartyFor', () => {
  it('takes the host of a secure origin; refuses IP addresses and plain http elsewhere', () => {
    expect(relyingPartyFor('http://localhost:8787')).toEqual({ ok: true, rp: { rpId: 'localhost', origin: 'http://localhost:8787' } });
    expect(relyingPartyFor('https://approvals.example.com/x')).toEqual({ ok: true, rp: { rpId: 'approvals.example.com', origin: 'https://approvals.example.com' } });
    expect(relyingPartyFor('http://127.0.0.1:8787')).toMatchObject({ ok: false, message: expect.stringContaining('IP address') });
    expect(relyingPartyFor('http://[::1]:8787')).toMatchObject({ ok: false });
    expect(relyingPartyFor('http://approvals.example.com')).toMatchObject({ ok: false, message: expect.stringContaining('https') });
  });

  it('the hint for an IP origin names only what works: --public-url (browsing to localhost does not change the origin)', () => {
    const found = relyingPartyFor('http://127.0.0.1:8787');
    if (found.ok) throw new Error('an IP origin must be refused');
    expect(found.message).toContain('--public-url http://localhost:8787');
    expect(found.message).not.toMatch(/use http:\/\/localhost/);
    const plain = relyingPartyFor('http://approvals.example.com');
    if (plain.ok) throw new Error('plain http must be refused');
    expect(plain.message).toContain('--public-url');
  });
});
