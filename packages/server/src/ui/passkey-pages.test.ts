import { MemoryPasskeyStore, passkeyChallenge, passkeyDecisionClaims } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { PASSKEY_POLICY_YAML as POLICY, requestView } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture } from '../testing/server-fixture.ts';
import { softAuthenticator } from '../testing/soft-authenticator.ts';

const ORIGIN = 'http://approvals.localhost';

async function setup() {
  const store = new MemoryPasskeyStore();
  const f = makeServerFixture({ publicOrigin: ORIGIN, passkeys: { store } }, { policy: loadPolicy(POLICY, 'yaml') });
  const fiona = softAuthenticator('fiona', { rpId: 'approvals.localhost', origin: ORIGIN });
  const oscar = softAuthenticator('oscar', { rpId: 'approvals.localhost', origin: ORIGIN });
  await store.add(fiona.credential(1));
  await store.add(oscar.credential(2));
  const browser = browserSession(f.app as never, ORIGIN);
  await browser.login('fiona', FIONA_PASSWORD);
  return { f, store, fiona, oscar, browser };
}

describe('passkey pages', () => {
  it('/passkeys lists only the signed-in approver’s passkeys and loads the same-origin script', async () => {
    const { fiona, oscar, browser } = await setup();
    const page = await (await browser.request('GET', '/passkeys')).text();
    expect(page).toContain(fiona.credentialId);
    expect(page).not.toContain(oscar.credentialId);
    expect(page).toContain('<script src="/assets/passkey.js" defer></script>');
    expect(page).toContain('class="passkey-remove"');
    expect(page).not.toMatch(/<script>(?!<)/);
    const script = await browser.request('GET', '/assets/passkey.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('an approver removes their own passkey (CSRF-checked, with a step-up), never someone else’s; a removed one takes no decision', async () => {
    const { f, store, fiona, oscar, browser } = await setup();
    const csrf = browser.csrfFrom(await (await browser.request('GET', '/passkeys')).text()) ?? '';
    expect((await browser.request('POST', '/passkeys/remove', { form: { csrf, credentialId: oscar.credentialId } })).status).toBe(404);
    expect((await store.get(oscar.credentialId))?.removedAt).toBeUndefined();
    expect((await browser.request('POST', '/passkeys/remove', { form: { csrf: 'forged', credentialId: fiona.credentialId } })).status).toBe(403);
    // The form alone (a session, no passkey: what a stolen password gives) is refused.
    const unconfirmed = await browser.request('POST', '/passkeys/remove', { form: { csrf, credentialId: fiona.credentialId } });
    expect(unconfirmed.status).toBe(403);
    expect(await unconfirmed.text()).toContain('step_up_required');
    expect((await store.get(fiona.credentialId))?.removedAt).toBeUndefined();
    // What passkey.js does: the removal challenge, signed by one of her passkeys, sent with the form.
    const challenge = (await (await f.fiona('POST', '/api/v1/passkeys/removal-challenge', { credentialId: fiona.credentialId })).json()) as { nonce: string; challenge: string };
    const stepUp = JSON.stringify(fiona.assertion(Buffer.from(challenge.challenge, 'base64url')));
    const removed = await browser.request('POST', '/passkeys/remove', { form: { csrf, credentialId: fiona.credentialId, nonce: challenge.nonce, stepUp } });
    expect(removed.status).toBe(303);
    expect((await f.audit.read()).at(-1)).toMatchObject({ type: 'passkey_removed', actor: 'fiona', detail: { credentialId: fiona.credentialId, removedBy: 'approver' } });
    expect((await store.get(fiona.credentialId))?.removedAt).toBeDefined();
    // Signed with the removed passkey: refused.
    const { requestId } = await f.proposeTransfer();
    // With no active passkey there is nothing to sign with: the challenge says so.
    const asked = await f.fiona('POST', '/api/v1/passkey-challenge', { requestId, decision: 'approve' });
    expect(await asked.json()).toMatchObject({ error: { code: 'passkey_required' } });
    const view = await requestView(f.gate, requestId);
    if (view === undefined) throw new Error('no request');
    const claims = passkeyDecisionClaims(view.proposal, view.request, { approver: 'fiona', decision: 'approve' });
    const res = await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve', passkeyAssertion: fiona.assertion(passkeyChallenge(claims)) });
    expect(await res.json()).toMatchObject({ error: { code: 'passkey_invalid' } });
  });

  it('the request page shows the passkey section and script only under a passkey rule; other requests load no passkey script', async () => {
    const { f, browser } = await setup();
    const { requestId } = await f.proposeTransfer();
    const signed = await (await browser.request('GET', `/requests/${requestId}`)).text();
    expect(signed).toContain('id="passkey-decision"');
    expect(signed).toContain('<script src="/assets/passkey.js" defer></script>');
    const res = await f.agent('POST', '/api/v1/proposals', f.proposalBody([{ id: 'call-deploy', name: 'deploy', arguments: {} }]));
    const deployId = ((await res.json()) as { outcomes: Array<{ requestId: string }> }).outcomes[0]?.requestId;
    const plain = await (await browser.request('GET', `/requests/${deployId}`)).text();
    expect(plain).not.toContain('/assets/passkey.js');
    expect(plain).not.toContain('passkey-decision');
  });

  it('a form post with a malformed assertion is a typed refusal shown on the page, not a crash', async () => {
    const { f, browser } = await setup();
    const { requestId } = await f.proposeTransfer();
    const csrf = browser.csrfFrom(await (await browser.request('GET', `/requests/${requestId}`)).text()) ?? '';
    for (const passkeyAssertion of ['{not json', '{"credentialId":"a"}', JSON.stringify({ credentialId: 'a', authenticatorData: 'b', clientDataJSON: 'c', signature: 'x'.repeat(5000) })]) {
      const res = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf, action: 'approve', passkeyAssertion } });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('passkey_invalid');
    }
  });
});
