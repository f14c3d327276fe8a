import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { checkPasskeyEvidence, MemoryPasskeyStore } from '@countersign/core/passkey';
import { loadPolicy } from '@countersign/core/policy';
import { PASSKEY_POLICY_YAML as POLICY } from '@countersign/core/testing';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offlineAssertionCheck } from '../passkey/webauthn-verifier.ts';
import { browserTestsRun, sharedChromium, signInByRequest } from '../testing/chromium.ts';
import { AGENT_TOKEN, FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

/** Screenshots for people to look at, only when asked for, like the other browser tests. */
const SCREENS = process.env.COUNTERSIGN_SCREENS_DIR;


let f: ServerFixture & { passkeyStore: MemoryPasskeyStore };
let server: ServerType;
/** WebAuthn needs a secure context: http://localhost is one (127.0.0.1 is not a valid RP id). */
let base: string;
let context: BrowserContext;

async function proposeTransfer(callId: string, args: unknown = { amount: 500, to: 'alice' }): Promise<string> {
  const res = await fetch(`${base}/api/v1/proposals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ runId: 'run-1', sessionId: 'session-1', principal: 'user:42', toolCalls: [{ id: callId, name: 'transfer', arguments: args }] }),
  });
  const out = (await res.json()) as { outcomes: Array<{ requestId: string; status: string }> };
  expect(out.outcomes[0]?.status).toBe('approval_required');
  return out.outcomes[0]!.requestId;
}

/** The agent's side once approved: fetch the token and dispatch the call from the ledger. */
async function dispatch(requestId: string, callId: string): Promise<string> {
  const token = (await (await fetch(`${base}/api/v1/requests/${requestId}/token`, { headers: { authorization: `Bearer ${AGENT_TOKEN}` } })).json()) as { token?: string };
  const res = await fetch(`${base}/api/v1/dispatch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...(await f.dispatchBody(callId, token.token)) }),
  });
  return ((await res.json()) as { status: string }).status;
}

/**
 * A signed-in page with a virtual platform authenticator (CTAP2, internal, user verification on).
 * Signed in by request: the sign-in form is driven by the test without JavaScript below.
 */
async function signedInWithAuthenticator(hasResidentKey = true): Promise<{ page: Page; cdp: CDPSession; authenticatorId: string }> {
  await signInByRequest(context, base, 'fiona', FIONA_PASSWORD);
  const page = await context.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { page, cdp, authenticatorId };
}

async function registerPasskey(page: Page, label = 'laptop'): Promise<void> {
  await page.goto(`${base}/passkeys`);
  await page.getByLabel('Name (to tell your passkeys apart)').fill(label);
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  // Either the page moves on, or the script says why not (named in the failure).
  const failed = page
    .locator('#passkey-status', { hasText: /^Not registered/ })
    .waitFor()
    .then(async () => {
      throw new Error(String(await page.locator('#passkey-status').textContent()));
    });
  failed.catch(() => {});
  await Promise.race([page.waitForURL(`${base}/passkeys?done=registered`), failed]);
}

type Decision = { requestId: string; decision: 'approve' | 'deny'; editedArguments?: unknown };
type Assertion = Record<string, string>;

/**
 * Script running in the signed-in page (a compromised page or extension has exactly
 * this power): asks the server for a real challenge and has the real authenticator
 * sign it; `present` then sends the assertion wherever it likes.
 */
function signWith(page: Page, sign: Decision, userVerification: 'required' | 'discouraged' = 'required'): Promise<Assertion> {
  return page.evaluate(
    async ({ sign, userVerification }) => {
      const toBytes = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const toText = (buffer: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      // Only the WebAuthn surface this script uses (the repo compiles without DOM types).
      type Assertion = { id: string; response: { authenticatorData: ArrayBuffer; clientDataJSON: ArrayBuffer; signature: ArrayBuffer } };
      const { navigator } = globalThis as unknown as { navigator: { credentials: { get(options: unknown): Promise<Assertion> } } };
      const res = await fetch('/api/v1/passkey-challenge', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sign) });
      const { publicKey } = (await res.json()) as { publicKey: { challenge: string; allowCredentials: Array<{ id: string }> } };
      const credential = await navigator.credentials.get({
        publicKey: {
          ...publicKey,
          challenge: toBytes(publicKey.challenge),
          allowCredentials: publicKey.allowCredentials.map((c) => ({ ...c, id: toBytes(c.id) })),
          userVerification,
        },
      });
      return {
        credentialId: credential.id,
        authenticatorData: toText(credential.response.authenticatorData),
        clientDataJSON: toText(credential.response.clientDataJSON),
        signature: toText(credential.response.signature),
      };
    },
    { sign, userVerification },
  );
}

function present(page: Page, send: Decision, passkeyAssertion: Assertion): Promise<{ status: number; code: string | undefined; message: string }> {
  return page.evaluate(
    async ({ send, passkeyAssertion }) => {
      const res = await fetch('/api/v1/decisions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...send, passkeyAssertion }) });
      const body = (await res.json()) as { error?: { code?: string; message?: string } };
      return { status: res.status, code: body.error?.code, message: body.error?.message ?? '' };
    },
    { send, passkeyAssertion },
  );
}

describe.skipIf(!browserTestsRun)('passkey-signed approvals in headless Chromium (virtual authenticator)', () => {
  beforeEach(async () => {
    const passkeyStore = new MemoryPasskeyStore();
    f = { ...makeServerFixture({ publicOrigin: undefined, passkeys: { store: passkeyStore, origin: () => base } }, { policy: loadPolicy(POLICY, 'yaml') }), passkeyStore };
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: f.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
    context = await (await sharedChromium()).newContext();
    // Generous: the machine is shared; nothing here asserts on time.
    context.setDefaultTimeout(20_000);
  });
  afterEach(async () => {
    await context.close();
    await f.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('registers a passkey, approves a passkey-rule request from the page, and the call runs once', { timeout: 90_000 }, async () => {
    const { page } = await signedInWithAuthenticator();
    await page.goto(`${base}/passkeys`);
    expect(await page.locator('#no-passkeys').count()).toBe(1);
    await registerPasskey(page, 'work laptop');
    expect(await page.locator('ul.passkeys li').count()).toBe(1);
    expect(await page.locator('ul.passkeys').textContent()).toContain('work laptop');

    const requestId = await proposeTransfer('call-pk-1');
    await page.goto(`${base}/requests/${requestId}`);
    expect(await page.locator('#passkey-decision').count()).toBe(1);
    if (SCREENS !== undefined) {
      mkdirSync(SCREENS, { recursive: true });
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: join(SCREENS, `passkey-request-${width}.png`), fullPage: true });
      }
    }
    await page.getByRole('button', { name: 'Approve this call' }).click();
    await page.waitForURL(`${base}/requests/${requestId}?done=approved`);
    const view = await f.gate.approvals.view(requestId);
    if (!view.ok) throw new Error('no request');
    expect(view.view.request).toMatchObject({ status: 'approved', decisions: [{ approver: 'fiona', decision: 'approve', passkey: { rpId: 'localhost', origin: base } }] });
    const audited = (await f.audit.read()).find((r) => r.type === 'decision');
    expect(audited?.detail?.passkey).toMatchObject({ credentialId: view.view.request.decisions[0]?.passkey?.credentialId });

    expect(await dispatch(requestId, 'call-pk-1')).toBe('executed');
    expect(await dispatch(requestId, 'call-pk-1')).not.toBe('executed');
    expect(f.executions).toHaveLength(1);

    if (SCREENS !== undefined) {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${base}/passkeys`);
        await page.screenshot({ path: join(SCREENS, `passkeys-page-${width}.png`), fullPage: true });
      }
    }
  });

  it('a second passkey is added only with a step-up from the first; without it nothing is stored or audited', { timeout: 90_000 }, async () => {
    // No resident keys: a second credential for the same user must not replace the first in the authenticator.
    const { page, cdp } = await signedInWithAuthenticator(false);
    await registerPasskey(page, 'laptop');
    const [first] = await f.audit.read().then((records) => records.filter((r) => r.type === 'passkey_registered'));
    expect(first).toMatchObject({ actor: 'fiona', detail: { authorizedBy: 'first' } });
    const laptopId = String(first?.detail?.credentialId);

    // A page script holding only the session (a stolen password): create a key and register it without a step-up.
    const refused = await page.evaluate(async () => {
      const toBytes = (text: string) => Uint8Array.from(atob(text.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
      const toText = (buffer: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      type Created = { id: string; rawId: ArrayBuffer; type: string; response: { clientDataJSON: ArrayBuffer; attestationObject: ArrayBuffer } };
      const { navigator } = globalThis as unknown as { navigator: { credentials: { create(options: unknown): Promise<Created> } } };
      const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const options = (await (await post('/api/v1/passkeys/registration-options', {})).json()) as { challenge: string; user: { id: string }; stepUp?: unknown };
      const { stepUp: _ignored, ...creation } = options;
      const credential = await navigator.credentials.create({
        publicKey: { ...creation, challenge: toBytes(options.challenge), user: { ...options.user, id: toBytes(options.user.id) }, excludeCredentials: [] },
      });
      const response = { id: credential.id, rawId: toText(credential.rawId), type: credential.type, clientExtensionResults: {}, response: { clientDataJSON: toText(credential.response.clientDataJSON), attestationObject: toText(credential.response.attestationObject) } };
      const res = await post('/api/v1/passkeys', { label: 'intruder', response });
      return { status: res.status, body: (await res.json()) as { error?: { code?: string } }, hadStepUp: options.stepUp !== undefined, id: credential.id };
    });
    expect(refused).toMatchObject({ status: 403, body: { error: { code: 'step_up_required' } }, hadStepUp: true });
    expect(await f.passkeyStore.get(refused.id)).toBeUndefined();
    expect((await f.audit.read()).filter((r) => r.type === 'passkey_registered')).toHaveLength(1);

    // The page: the first passkey confirms (get), then a second authenticator creates the new one.
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'usb', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
    await registerPasskey(page, 'security key');
    expect(await page.locator('ul.passkeys li').count()).toBe(2);
    const registered = (await f.audit.read()).filter((r) => r.type === 'passkey_registered');
    expect(registered).toHaveLength(2);
    expect(registered[1]).toMatchObject({ actor: 'fiona', detail: { authorizedBy: 'passkey', stepUp: { credentialId: laptopId } } });

    // Both keys are in the chain: a decision signed with either verifies offline from the chain alone.
    const requestId = await proposeTransfer('call-two-keys');
    await page.goto(`${base}/requests/${requestId}`);
    await page.getByRole('button', { name: 'Approve this call' }).click();
    await page.waitForURL(`${base}/requests/${requestId}?done=approved`);
    const report = await checkPasskeyEvidence(await f.audit.read(), offlineAssertionCheck, { table: await f.passkeyStore.list() });
    expect(report).toMatchObject({ verified: 1, registered: 2, firstRegistrations: 1, problems: [] });

    // Removing one from the page: passkey.js has one of her passkeys sign the removal first.
    await page.goto(`${base}/passkeys`);
    await page.locator('ul.passkeys li', { hasText: 'security key' }).getByRole('button', { name: 'Remove' }).click();
    await page.waitForURL(`${base}/passkeys?done=removed`);
    expect(await page.locator('ul.passkeys li').count()).toBe(1);
    expect((await f.audit.read()).at(-1)).toMatchObject({ type: 'passkey_removed', actor: 'fiona', detail: { removedBy: 'approver', stepUp: { rpId: 'localhost' } } });
    const after = await checkPasskeyEvidence(await f.audit.read(), offlineAssertionCheck, { table: await f.passkeyStore.list() });
    expect(after).toMatchObject({ verified: 1, registered: 2, removed: 1, problems: [] });
  });

  it('refuses an assertion for call A presented for call B, for edited arguments, after expiry, or without user verification', { timeout: 120_000 }, async () => {
    const { page, cdp, authenticatorId } = await signedInWithAuthenticator();
    await registerPasskey(page);
    await page.goto(`${base}/`);
    const a = await proposeTransfer('call-a');
    const b = await proposeTransfer('call-b');

    // Made for A, presented for B.
    const forA = await signWith(page, { requestId: a, decision: 'approve' });
    expect(await present(page, { requestId: b, decision: 'approve' }, forA)).toEqual({ status: 403, code: 'passkey_invalid', message: expect.stringMatching(/challenge/i) });
    // Made for approving A as recorded, presented with edited arguments.
    const edited = { amount: 5000, to: 'mallory' };
    expect(await present(page, { requestId: a, decision: 'approve', editedArguments: edited }, await signWith(page, { requestId: a, decision: 'approve' }))).toEqual({
      status: 403,
      code: 'passkey_invalid',
      message: expect.stringMatching(/challenge/i),
    });
    // Made to deny A, presented as an approval of A.
    expect(await present(page, { requestId: a, decision: 'approve' }, await signWith(page, { requestId: a, decision: 'deny' }))).toEqual({
      status: 403,
      code: 'passkey_invalid',
      message: expect.stringMatching(/challenge/i),
    });
    // Without user verification (the authenticator tests presence only).
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: false });
    const unverified = await signWith(page, { requestId: a, decision: 'approve' }, 'discouraged');
    await cdp.send('WebAuthn.setUserVerified', { authenticatorId, isUserVerified: true });
    expect(await present(page, { requestId: a, decision: 'approve' }, unverified)).toEqual({ status: 403, code: 'passkey_invalid', message: expect.stringMatching(/user.*verif/i) });
    expect(f.executions).toHaveLength(0);
    const stillPending = await f.gate.approvals.view(a);
    expect(stillPending.ok && stillPending.view.request.decisions).toEqual([]);

    // After expiry: signed while the request was open, presented once its deadline passed.
    const c = await proposeTransfer('call-c');
    const signedInTime = await signWith(page, { requestId: c, decision: 'approve' });
    f.clock.advance(901_000);
    expect(await present(page, { requestId: c, decision: 'approve' }, signedInTime)).toMatchObject({ status: 409, code: 'expired' });
    const expired = await f.gate.approvals.view(c);
    expect(expired.ok && expired.view.request.decisions).toEqual([]);

    // The honest path still works for A: signed for A, presented for A.
    const fresh = await proposeTransfer('call-d');
    expect(await present(page, { requestId: fresh, decision: 'approve' }, await signWith(page, { requestId: fresh, decision: 'approve' }))).toMatchObject({ status: 200 });
    expect(await dispatch(fresh, 'call-d')).toBe('executed');
    expect(f.executions).toHaveLength(1);
  });

  it('approve-with-edits from the page: the edit is signed over the edited arguments, the edited call needs its own signed approval', { timeout: 90_000 }, async () => {
    const { page } = await signedInWithAuthenticator();
    await registerPasskey(page);
    const requestId = await proposeTransfer('call-edit', { amount: 500, to: 'alice' });
    await page.goto(`${base}/requests/${requestId}`);
    await page.getByText('Edit the arguments, then approve').click();
    await page.getByLabel('Arguments (JSON)').fill('{"amount": 400, "to": "alice"}');
    await page.getByRole('button', { name: 'Approve edited call' }).click();
    await page.waitForURL(`${base}/requests/${requestId}?done=edited_pending`);
    const original = await f.gate.approvals.view(requestId);
    if (!original.ok || original.view.edited?.requestId === undefined) throw new Error('expected an edit');
    expect(original.view.request.decisions[0]).toMatchObject({ decision: 'deny', passkey: { rpId: 'localhost' } });
    const editedId = original.view.edited.requestId;
    await page.goto(`${base}/requests/${editedId}`);
    expect(await page.locator('#passkey-decision').count()).toBe(1);
    await page.getByRole('button', { name: 'Approve this call' }).click();
    await page.waitForURL(`${base}/requests/${editedId}?done=approved`);
    const edited = await f.gate.approvals.view(editedId);
    expect(edited.ok && edited.view.request).toMatchObject({ status: 'approved', decisions: [{ decision: 'approve', passkey: { rpId: 'localhost' } }] });
    expect(edited.ok && edited.view.proposal.canonicalArgs).toBe('{"amount":400,"to":"alice"}');
  });

  it('a page decision without JavaScript is refused for a passkey rule: the form alone cannot approve', { timeout: 60_000 }, async () => {
    const noScript = await (await sharedChromium()).newContext({ javaScriptEnabled: false });
    try {
      const page = await noScript.newPage();
      await page.goto(`${base}/login`);
      await page.getByLabel('Approver id').fill('fiona');
      await page.getByLabel('Password').fill(FIONA_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${base}/`);
      const requestId = await proposeTransfer('call-nojs');
      await page.goto(`${base}/requests/${requestId}`);
      await page.getByRole('button', { name: 'Approve this call' }).click();
      expect(await page.locator('#decision-error').count()).toBe(1);
      expect(await page.locator('#decision-error').textContent()).toContain('passkey_required');
      const view = await f.gate.approvals.view(requestId);
      expect(view.ok && view.view.request.status).toBe('pending');
    } finally {
      await noScript.close();
    }
  });
});
