import { MemoryPasskeyStore } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { FIONA_TOKEN, makeServerFixture } from '../testing/server-fixture.ts';
import { softAuthenticator } from '../testing/soft-authenticator.ts';

const ORIGIN = 'http://approvals.localhost';

async function setup() {
  const passkeys = new MemoryPasskeyStore();
  const f = makeServerFixture({ publicOrigin: ORIGIN, passkeys: { store: passkeys } }, { policy: loadPolicy(POLICY, 'yaml') });
  const fiona = softAuthenticator('fiona', { rpId: 'approvals.localhost', origin: ORIGIN });
  await passkeys.add(fiona.credential());
  /** What a terminal or API approver does: ask for the challenge, sign it, send it with the decision. */
  const challengeFor = async (body: Record<string, unknown>) => {
    const res = await f.fiona('POST', '/api/v1/passkey-challenge', body);
    expect(res.status).toBe(200);
    const json = (await res.json()) as { challenge: string; claims: Record<string, unknown>; publicKey: { rpId: string; allowCredentials: Array<{ id: string }> } };
    return json;
  };
  return { f, fiona, challengeFor, store: passkeys };
}

describe('POST /decisions under a passkey rule (API and terminal approvers)', () => {
  it('refuses a decision without an assertion: 403 passkey_required, nothing recorded', async () => {
    const { f } = await setup();
    const { requestId } = await f.proposeTransfer();
    for (const decision of ['approve', 'deny']) {
      const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: { code: 'passkey_required' } });
    }
    const view = (await (await f.fiona('GET', `/api/v1/approvals/${requestId}`)).json()) as { passkey?: string; decisions: unknown[] };
    expect(view).toMatchObject({ passkey: 'required', decisions: [] });
  });

  it('POST /passkey-challenge gives the ledger’s claims; a signed approval counts and the call runs once', async () => {
    const { f, fiona, challengeFor } = await setup();
    const { requestId, callId, argsDigest } = await f.proposeTransfer();
    const got = await challengeFor({ requestId, decision: 'approve' });
    expect(got.claims).toMatchObject({ req: requestId, call: callId, args: argsDigest, dec: 'approve', edit: null, sub: 'user:42' });
    expect(got.publicKey).toMatchObject({ rpId: 'approvals.localhost', allowCredentials: [{ id: fiona.credentialId }] });
    const passkeyAssertion = fiona.assertion(Buffer.from(got.challenge, 'base64url'));
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', passkeyAssertion });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ request: { status: 'approved', decisions: [{ approver: 'fiona', passkeyCredentialId: fiona.credentialId }] } });
    const token = (await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string };
    const first = await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId, token.token));
    expect(await first.json()).toMatchObject({ status: 'executed' });
    const again = await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId, token.token));
    expect(await again.json()).not.toMatchObject({ status: 'executed' });
    expect(f.executions).toHaveLength(1);
  });

  it('refuses an assertion for another call, for the other decision, for edited arguments, replayed, or junk', async () => {
    const { f, fiona, challengeFor } = await setup();
    const a = await f.proposeTransfer({ amount: 500, to: 'alice' }, 'call-a');
    const b = await f.proposeTransfer({ amount: 500, to: 'alice' }, 'call-b');
    const signedFor = async (body: Record<string, unknown>) => fiona.assertion(Buffer.from((await challengeFor(body)).challenge, 'base64url'));
    const refused = async (body: Record<string, unknown>, code: string) => {
      const res = await f.fiona('POST', '/api/v1/decisions', body);
      expect(await res.json(), JSON.stringify(body).slice(0, 80)).toMatchObject({ error: { code } });
    };
    const forA = await signedFor({ requestId: a.requestId, decision: 'approve' });
    await refused({ requestId: b.requestId, decision: 'approve', passkeyAssertion: forA }, 'passkey_invalid');
    await refused({ requestId: a.requestId, decision: 'deny', passkeyAssertion: await signedFor({ requestId: a.requestId, decision: 'approve' }) }, 'passkey_invalid');
    await refused({ requestId: a.requestId, decision: 'approve', editedArguments: { amount: 5, to: 'mallory' }, passkeyAssertion: forA }, 'passkey_invalid');
    await refused({ requestId: a.requestId, decision: 'approve', passkeyAssertion: { credentialId: 'x' } }, 'passkey_invalid');
    await refused({ requestId: a.requestId, decision: 'revoke', passkeyAssertion: forA }, 'invalid_request');
    // A signed edit counts: the claims name the edited arguments' digest.
    const edited = { amount: 400, to: 'alice' };
    const forEdit = await signedFor({ requestId: a.requestId, decision: 'approve', editedArguments: edited });
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId: a.requestId, decision: 'approve', editedArguments: edited, passkeyAssertion: forEdit });
    expect(await res.json()).toMatchObject({ request: { status: 'edited' }, editedRequest: { status: 'pending', passkey: 'required' } });
    // Replayed on the other call's fresh challenge is another challenge; replayed as is, the counter has not moved.
    const forB = await signedFor({ requestId: b.requestId, decision: 'deny' });
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId: b.requestId, decision: 'deny', passkeyAssertion: forB })).status).toBe(200);
    expect(f.executions).toHaveLength(0);
  });

  it('POST /passkey-challenge answers a clear error for an expired or decided request, and for an approver with no passkey', async () => {
    const { f, store, fiona: device } = await setup();
    const { requestId } = await f.proposeTransfer();
    const challenge = (body: Record<string, unknown>) => f.fiona('POST', '/api/v1/passkey-challenge', body);
    // The claims name fiona (version 2): her signature is her consent, nobody else's.
    expect(((await (await challenge({ requestId, decision: 'approve' })).json()) as { claims: unknown }).claims).toMatchObject({ v: 2, apr: 'fiona' });
    // Decided already: 409 already_decided.
    const other = await f.proposeTransfer({ amount: 7, to: 'bob' }, 'call-decided');
    const denyFor = (await (await challenge({ requestId: other.requestId, decision: 'deny' })).json()) as { challenge: string };
    const denied = await f.fiona('POST', '/api/v1/decisions', { requestId: other.requestId, decision: 'deny', passkeyAssertion: device.assertion(Buffer.from(denyFor.challenge, 'base64url')) });
    expect(denied.status).toBe(200);
    const decided = await challenge({ requestId: other.requestId, decision: 'approve' });
    expect(decided.status).toBe(409);
    expect(await decided.json()).toMatchObject({ error: { code: 'already_decided' } });
    // No active passkey: nothing to sign with (403 passkey_required, not a challenge nobody can answer).
    await store.remove('fiona', (await store.list('fiona'))[0]?.credentialId ?? '', f.clock());
    const keyless = await challenge({ requestId, decision: 'approve' });
    expect(keyless.status).toBe(403);
    expect(await keyless.json()).toMatchObject({ error: { code: 'passkey_required', message: expect.stringMatching(/no passkey/) } });
    // Past its deadline: 409 expired.
    f.clock.advance(24 * 3600_000);
    const late = await challenge({ requestId, decision: 'approve' });
    expect(late.status).toBe(409);
    expect(await late.json()).toMatchObject({ error: { code: 'expired' } });
  });

  it('a service without passkeys enabled takes no decision under the rule', async () => {
    const f = makeServerFixture({}, { policy: loadPolicy(POLICY, 'yaml') });
    const { requestId } = await f.proposeTransfer();
    const res = await f.send('POST', '/api/v1/decisions', FIONA_TOKEN, { requestId, decision: 'approve', passkeyAssertion: softAuthenticator('fiona').assertion(new Uint8Array(32)) });
    expect(await res.json()).toMatchObject({ error: { code: 'passkey_invalid' } });
    expect((await f.fiona('POST', '/api/v1/passkey-challenge', { requestId, decision: 'approve' })).status).toBe(404);
  });
});
