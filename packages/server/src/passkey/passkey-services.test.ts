import { MemoryPasskeyStore } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { FIONA_TOKEN, makeServerFixture } from '../testing/server-fixture.ts';
import { softAuthenticator } from '../testing/soft-authenticator.ts';

describe('the passkey relying party comes from configuration, never from the Host header', () => {
  it('createApp with passkeys but neither publicOrigin nor passkeys.origin refuses to start (typed)', () => {
    expect(() => makeServerFixture({ publicOrigin: undefined, passkeys: { store: new MemoryPasskeyStore() } })).toThrow(
      expect.objectContaining({ name: 'ServerConfigError', code: 'invalid_passkey_origin' }),
    );
  });

  it('an assertion made for the origin a request’s Host names is refused: the configured one counts', async () => {
    const store = new MemoryPasskeyStore();
    const f = makeServerFixture({ publicOrigin: undefined, passkeys: { store, origin: () => 'http://approvals.localhost' } }, { policy: loadPolicy(POLICY, 'yaml') });
    // A device registered for the origin the request will claim (what an attacker choosing the Host controls).
    const device = softAuthenticator('fiona', { rpId: 'localhost', origin: 'http://localhost:9999' });
    await store.add(device.credential());
    const { requestId } = await f.proposeTransfer();
    const post = (path: string, body: unknown) =>
      f.app.request(`http://localhost:9999${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${FIONA_TOKEN}`, 'content-type': 'application/json', host: 'localhost:9999' },
        body: JSON.stringify(body),
      });
    const challenge = (await (await post('/api/v1/passkey-challenge', { requestId, decision: 'approve' })).json()) as { challenge: string; publicKey: { rpId: string } };
    expect(challenge.publicKey.rpId).toBe('approvals.localhost');
    const assertion = device.assertion(Buffer.from(challenge.challenge, 'base64url'));
    const res = await post('/api/v1/decisions', { requestId, decision: 'approve', passkeyAssertion: assertion });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'passkey_invalid' } });
  });
});
