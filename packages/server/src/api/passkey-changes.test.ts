import { MemoryAuditLog } from '@countersign/core/audit';
import { checkPasskeyEvidence, MemoryPasskeyStore, passkeyChangeChallenge, passkeyEnrolClaims, passkeyRemoveClaims } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { offlineAssertionCheck } from '../passkey/webauthn-verifier.ts';
import { makeServerFixture } from '../testing/server-fixture.ts';
import { softAuthenticator } from '../testing/soft-authenticator.ts';

const ORIGIN = 'http://approvals.localhost';
const device = (owner: string) => softAuthenticator(owner, { rpId: 'approvals.localhost', origin: ORIGIN });

type Options = { challenge: string; stepUp?: { challenge: string; claims: Record<string, unknown>; publicKey: { allowCredentials: Array<{ id: string }> } } };

async function setup(atomic: boolean) {
  const audit = new MemoryAuditLog();
  const store = new MemoryPasskeyStore(atomic ? { audit } : {});
  const f = makeServerFixture({ publicOrigin: ORIGIN, passkeys: { store } }, { policy: loadPolicy(POLICY, 'yaml'), audit });
  const as = (who: 'fiona' | 'oscar') => f[who];
  const options = async (who: 'fiona' | 'oscar' = 'fiona') => (await (await as(who)('POST', '/api/v1/passkeys/registration-options', {})).json()) as Options;
  /** Registers `key` for `who` as the page does; `sign` makes the step-up from the options, if any. */
  const register = async (who: 'fiona' | 'oscar', key: ReturnType<typeof device>, sign?: (o: Options) => unknown) => {
    const o = await options(who);
    const stepUp = sign?.(o);
    return as(who)('POST', '/api/v1/passkeys', { label: key.credentialId, response: key.registration(o.challenge), ...(stepUp === undefined ? {} : { stepUp }) });
  };
  const types = async () => (await f.audit.read()).filter((r) => r.type.startsWith('passkey_')).map((r) => r.type);
  return { f, store, options, register, types };
}

for (const atomic of [true, false]) {
  describe(`passkey changes over the API need a step-up from an own passkey (${atomic ? 'store on the gate’s chain' : 'separate store: record first'})`, () => {
    it('the first passkey on sign-in alone, audited with its public key; no stepUp is offered for it', async () => {
      const { f, store, options, register } = await setup(atomic);
      expect((await options()).stepUp).toBeUndefined();
      const laptop = device('fiona');
      const res = await register('fiona', laptop);
      expect(res.status).toBe(201);
      expect(await store.get(laptop.credentialId)).toMatchObject({ approver: 'fiona', publicKey: laptop.credential().publicKey });
      expect((await f.audit.read()).at(-1)).toMatchObject({
        type: 'passkey_registered',
        actor: 'fiona',
        detail: { credentialId: laptop.credentialId, publicKey: laptop.credential().publicKey, algorithm: -7, authorizedBy: 'first' },
      });
    });

    it('a second registration without a step-up is refused: nothing stored, nothing audited', async () => {
      const { store, register, types } = await setup(atomic);
      await register('fiona', device('fiona'));
      // Someone holding fiona's password registers their own authenticator in her name.
      const intruder = device('fiona');
      const res = await register('fiona', intruder);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'step_up_required' } });
      expect(await store.get(intruder.credentialId)).toBeUndefined();
      expect(await types()).toEqual(['passkey_registered']);
    });

    it('refuses a step-up by another approver’s passkey, or one made for another operation; accepts her own over this ceremony', async () => {
      const { f, store, register, types } = await setup(atomic);
      const laptop = device('fiona');
      await register('fiona', laptop);
      const oscarKey = device('oscar');
      await register('oscar', oscarKey);
      const intruder = device('fiona');
      const refused = async (sign: (o: Options) => unknown, code = 'step_up_invalid') => {
        const res = await register('fiona', intruder, sign);
        expect(res.status).toBe(403);
        expect(await res.json()).toMatchObject({ error: { code } });
        expect(await store.get(intruder.credentialId)).toBeUndefined();
      };
      // Oscar's genuine, active passkey over exactly fiona's enrolment claims: not hers.
      await refused((o) => oscarKey.assertion(Buffer.from(o.stepUp!.challenge, 'base64url')));
      // Fiona's device, signing a decision challenge.
      const { requestId } = await f.proposeTransfer();
      const decision = (await (await f.fiona('POST', '/api/v1/passkey-challenge', { requestId, decision: 'approve' })).json()) as { challenge: string };
      await refused(() => laptop.assertion(Buffer.from(decision.challenge, 'base64url')));
      // Fiona's device, signing a removal challenge (presented as an enrolment).
      const removal = (await (await f.fiona('POST', '/api/v1/passkeys/removal-challenge', { credentialId: laptop.credentialId })).json()) as { challenge: string };
      await refused(() => laptop.assertion(Buffer.from(removal.challenge, 'base64url')));
      // Fiona's device, over the enrolment claims of ANOTHER registration ceremony.
      await refused(() => laptop.assertion(passkeyChangeChallenge(passkeyEnrolClaims('fiona', 'another-ceremony'))));
      // Without user verification; malformed.
      await refused((o) => laptop.assertion(Buffer.from(o.stepUp!.challenge, 'base64url'), { userVerified: false }));
      await refused(() => ({ credentialId: laptop.credentialId }));
      expect(await types()).toEqual(['passkey_registered', 'passkey_registered']);
      // The honest path: the page signs the stepUp the options carried, then creates the new key.
      const phone = device('fiona');
      const res = await register('fiona', phone, (o) => {
        expect(o.stepUp?.publicKey.allowCredentials).toEqual([expect.objectContaining({ id: laptop.credentialId })]);
        return laptop.assertion(Buffer.from(o.stepUp!.challenge, 'base64url'));
      });
      expect(res.status).toBe(201);
      expect((await f.audit.read()).at(-1)).toMatchObject({ type: 'passkey_registered', detail: { credentialId: phone.credentialId, authorizedBy: 'passkey', stepUp: { credentialId: laptop.credentialId } } });
    });

    it('removal needs a step-up over that removal with a live nonce of ours; the chain and the table agree afterwards', async () => {
      const { f, store, register } = await setup(atomic);
      const laptop = device('fiona');
      const phone = device('fiona');
      await register('fiona', laptop);
      await register('fiona', phone, (o) => laptop.assertion(Buffer.from(o.stepUp!.challenge, 'base64url')));
      const remove = (body: Record<string, unknown>) => f.fiona('POST', '/api/v1/passkeys/remove', body);
      const got = (await (await f.fiona('POST', '/api/v1/passkeys/removal-challenge', { credentialId: phone.credentialId })).json()) as { nonce: string; challenge: string };
      const refused = async (body: Record<string, unknown>, code: string) => {
        const res = await remove(body);
        expect(await res.json(), JSON.stringify(body).slice(0, 60)).toMatchObject({ error: { code } });
        expect((await store.get(phone.credentialId))?.removedAt).toBeUndefined();
      };
      await refused({ credentialId: phone.credentialId, nonce: got.nonce }, 'step_up_required');
      // A nonce of another credential's removal, or one we never issued.
      const other = (await (await f.fiona('POST', '/api/v1/passkeys/removal-challenge', { credentialId: laptop.credentialId })).json()) as { nonce: string };
      const overOther = laptop.assertion(passkeyChangeChallenge(passkeyRemoveClaims('fiona', phone.credentialId, other.nonce)));
      await refused({ credentialId: phone.credentialId, nonce: other.nonce, stepUp: overOther }, 'step_up_invalid');
      const invented = laptop.assertion(passkeyChangeChallenge(passkeyRemoveClaims('fiona', phone.credentialId, 'invented')));
      await refused({ credentialId: phone.credentialId, nonce: 'invented', stepUp: invented }, 'step_up_invalid');
      // Signed over an enrolment instead of this removal.
      const options = (await (await f.fiona('POST', '/api/v1/passkeys/registration-options', {})).json()) as Options;
      await refused({ credentialId: phone.credentialId, nonce: got.nonce, stepUp: laptop.assertion(Buffer.from(options.stepUp!.challenge, 'base64url')) }, 'step_up_invalid');
      // Oscar cannot remove fiona's passkey even with his own step-up.
      expect((await f.oscar('POST', '/api/v1/passkeys/removal-challenge', { credentialId: phone.credentialId })).status).toBe(404);
      // Expired nonce.
      f.clock.advance(5 * 60_000 + 1);
      await refused({ credentialId: phone.credentialId, nonce: got.nonce, stepUp: laptop.assertion(Buffer.from(got.challenge, 'base64url')) }, 'step_up_invalid');
      const fresh = (await (await f.fiona('POST', '/api/v1/passkeys/removal-challenge', { credentialId: phone.credentialId })).json()) as { nonce: string; challenge: string };
      const res = await remove({ credentialId: phone.credentialId, nonce: fresh.nonce, stepUp: laptop.assertion(Buffer.from(fresh.challenge, 'base64url')) });
      expect(res.status).toBe(200);
      expect((await store.get(phone.credentialId))?.removedAt).toBe(f.clock());
      // The chain alone proves every change was authorized, and the table matches it.
      const report = await checkPasskeyEvidence(await f.audit.read(), offlineAssertionCheck, { table: await store.list() });
      expect(report).toMatchObject({ registered: 2, firstRegistrations: 1, removed: 1, operatorRemovals: 0, problems: [] });
    });
  });
}
