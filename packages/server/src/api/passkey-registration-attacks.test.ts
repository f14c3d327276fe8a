import { randomBytes } from 'node:crypto';
import { MemoryAuditLog } from '@countersign/core/audit';
import { MemoryPasskeyStore } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { makeServerFixture } from '../testing/server-fixture.ts';
import { softAuthenticator } from '../testing/soft-authenticator.ts';

const ORIGIN = 'http://approvals.localhost';
const device = (owner: string, keys?: ReturnType<typeof softAuthenticator>['keys']) =>
  softAuthenticator(owner, { rpId: 'approvals.localhost', origin: ORIGIN, ...(keys === undefined ? {} : { keys }) });

async function setup() {
  const audit = new MemoryAuditLog();
  const store = new MemoryPasskeyStore({ audit });
  const f = makeServerFixture({ publicOrigin: ORIGIN, passkeys: { store } }, { policy: loadPolicy(POLICY, 'yaml'), audit });
  const as = (who: 'fiona' | 'oscar') => f[who];
  /** A first registration of `response(challenge)` for `who`, as the page sends it. */
  const register = async (who: 'fiona' | 'oscar', response: (challenge: string) => unknown) => {
    const options = (await (await as(who)('POST', '/api/v1/passkeys/registration-options', {})).json()) as { challenge: string };
    return as(who)('POST', '/api/v1/passkeys', { label: 'key', response: response(options.challenge) });
  };
  const registered = async () => (await f.audit.read()).filter((r) => r.type === 'passkey_registered').length;
  return { f, store, register, registered };
}

/** A COSE EC2 key {1: 2, 3: alg, -1: 1, -2: x, -3: y} with the given coordinates and algorithm. */
function ec2Cose(x: Buffer, y: Buffer, alg: number): Buffer {
  const algByte = alg === -7 ? [0x26] : [0x39, 0x01, 0x00]; // -7, or -257
  return Buffer.concat([Buffer.from([0xa5, 0x01, 0x02, 0x03, ...algByte, 0x20, 0x01, 0x21, 0x58, 0x20]), x, Buffer.from([0x22, 0x58, 0x20]), y]);
}

describe('POST /passkeys: registration input is checked in full before anything is stored', () => {
  it('refuses transports that are not an array of known names (400), stores and audits nothing, and the approver stays usable', async () => {
    const { f, store, register, registered } = await setup();
    const key = device('fiona');
    for (const transports of [[{}, 1], 7, 'usb', ['usb', 'carrier-pigeon'], Array.from({ length: 9 }, () => 'usb')]) {
      const res = await register('fiona', (challenge) => key.registration(challenge, { transports }));
      expect(res.status, JSON.stringify(transports)).toBe(400);
      expect(await res.json()).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/transport/) } });
    }
    expect(await store.list()).toEqual([]);
    expect(await registered()).toBe(0);
    // Known transports (repeated ones once) are kept as the browser's hint.
    expect((await register('fiona', (challenge) => key.registration(challenge, { transports: ['usb', 'nfc', 'usb'] }))).status).toBe(201);
    expect(await store.get(key.credentialId)).toMatchObject({ transports: ['usb', 'nfc'] });
    expect((await f.fiona('POST', '/api/v1/passkeys/registration-options', {})).status).toBe(200);
  });

  it('refuses a credential id over 1,023 bytes (WebAuthn’s bound): such a key could never sign or be removed', async () => {
    const { store, register } = await setup();
    const key = device('fiona');
    const res = await register('fiona', (challenge) => key.registration(challenge, { credentialId: randomBytes(1024) }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringMatching(/credential id must be 1 to 1023 bytes/) } });
    expect(await store.list()).toEqual([]);
    expect((await register('fiona', (challenge) => key.registration(challenge, { credentialId: randomBytes(1023) }))).status).toBe(201);
  });

  it('refuses an EC point off its curve, an EC key declaring RS256, and a counter that can never advance', async () => {
    const { store, register, registered } = await setup();
    const key = device('fiona');
    const x = Buffer.from(key.cose.subarray(10, 42));
    const y = Buffer.from(key.cose.subarray(45, 77));
    const offCurve = Buffer.from(y);
    offCurve[31] = (offCurve[31] ?? 0) ^ 1;
    const cases: [string, (challenge: string) => unknown, RegExp][] = [
      ['off-curve point', (challenge) => key.registration(challenge, { cose: ec2Cose(x, offCurve, -7) }), /not a valid key/],
      ['EC key declaring RS256', (challenge) => key.registration(challenge, { cose: ec2Cose(x, y, -257) }), /EC2 key signs only with ES256/],
      ['counter at 2^32-1', (challenge) => key.registration(challenge, { counter: 0xffff_ffff }), /counter is at its limit/],
    ];
    for (const [name, response, message] of cases) {
      const res = await register('fiona', response);
      expect(res.status, name).toBe(400);
      expect(await res.json(), name).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(message) } });
    }
    expect(await store.list()).toEqual([]);
    expect(await registered()).toBe(0);
  });

  it('refuses a public key registered before, under another approver (one touch is never two approvals)', async () => {
    const { store, register, registered } = await setup();
    const fiona = device('fiona');
    expect((await register('fiona', (challenge) => fiona.registration(challenge))).status).toBe(201);
    // oscar, keyless, registers a credential of his own id carrying fiona's public key (read from the audit trail).
    const copy = device('oscar', fiona.keys);
    expect(copy.credentialId).not.toBe(fiona.credentialId);
    const res = await register('oscar', (challenge) => copy.registration(challenge));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/public key is already registered/) } });
    expect(await store.list('oscar')).toEqual([]);
    expect(await registered()).toBe(1);
  });
});

describe('POST /passkeys: one step-up registers one passkey, whatever the replicas’ clocks say', () => {
  it('refuses a step-up replayed on its ceremony after a replica whose clock is 30 s behind registered the first key', async () => {
    const { f, store, register } = await setup();
    const laptop = device('fiona');
    expect((await register('fiona', (challenge) => laptop.registration(challenge))).status).toBe(201);
    // Replica A (the right time) begins a ceremony; the step-up is captured (an authenticator that does not count: counter 0).
    const startedAt = f.clock();
    const options = (await (await f.fiona('POST', '/api/v1/passkeys/registration-options', {})).json()) as { challenge: string; stepUp: { challenge: string } };
    const stepUp = laptop.assertion(Buffer.from(options.stepUp.challenge, 'base64url'), { counter: 0 });
    // Replica B, 30 s behind, finishes it: its passkey is stamped before the ceremony began.
    f.clock.set(startedAt - 25_000);
    const phone = device('fiona');
    expect((await f.fiona('POST', '/api/v1/passkeys', { label: 'phone', response: phone.registration(options.challenge), stepUp })).status).toBe(201);
    // Back on replica A, someone with fiona's session replays the step-up for their own key.
    f.clock.set(startedAt + 5_000);
    const intruder = device('fiona');
    const res = await f.fiona('POST', '/api/v1/passkeys', { label: 'intruder', response: intruder.registration(options.challenge), stepUp });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'step_up_invalid', message: expect.stringMatching(/registration ceremony already/) } });
    expect(await store.get(intruder.credentialId)).toBeUndefined();
  });
});
