import { requestView } from '@countersign/core/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { displayText } from '@countersign/core/display';
import type { DispatchOutcome } from '@countersign/core/gate';
import type { BrowserContext } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserTestsRun, sharedChromium, signInByRequest, submitLogin } from '../testing/chromium.ts';
import { HOSTILE_CALLS } from '../testing/hostile-calls.ts';
import { AGENT_TOKEN, FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

let f: ServerFixture;
let server: ServerType;
let base: string;
let context: BrowserContext;
let attacker: Server | undefined;

/** What the server saw and answered, request by request. */
let seen: Array<{ method: string; path: string; status: number; origin: string | null; fetchSite: string | null; cookie: string | null }>;

function listen(fixture: ServerFixture): Promise<ServerType> {
  seen = [];
  const fetch = async (request: Request) => {
    const response = await fixture.app.fetch(request);
    seen.push({
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      origin: request.headers.get('origin'),
      fetchSite: request.headers.get('sec-fetch-site'),
      cookie: request.headers.get('cookie'),
    });
    return response;
  };
  return new Promise((resolve) => {
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A page on ANOTHER origin (another port) under the attacker's control. */
async function startAttacker(pages: Record<string, string>): Promise<string> {
  attacker = createServer((req, res) => {
    const body = pages[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html' }).end(body ?? 'no');
  });
  await new Promise<void>((resolve) => attacker!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
}

async function agentCall<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${AGENT_TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await res.json()) as T;
}

async function proposeTransfer(callId: string, args: unknown, principal = 'user:42'): Promise<string> {
  const out = await agentCall<{ outcomes: Array<{ requestId: string; status: string }> }>('POST', '/api/v1/proposals', {
    runId: 'run-1',
    sessionId: 'session-1',
    principal,
    toolCalls: [{ id: callId, name: 'transfer', arguments: args }],
  });
  expect(out.outcomes[0]?.status).toBe('approval_required');
  return out.outcomes[0]!.requestId;
}

/** A page signed in as fiona through the sign-in form, on the request list it leads to. */
async function signInWithForm() {
  const page = await context.newPage();
  await page.goto(`${base}/login`);
  await submitLogin(page, 'fiona', FIONA_PASSWORD, `${base}/`);
  return page;
}

/** A blank page, signed in as fiona (signInByRequest): each test loads the pages it checks. */
async function signedInPage() {
  await signInByRequest(context, base, 'fiona', FIONA_PASSWORD);
  return context.newPage();
}

describe.skipIf(!browserTestsRun)('approval page in headless Chromium', () => {
  beforeEach(async () => {
    f = makeServerFixture({ publicOrigin: undefined });
    server = await listen(f);
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    context = await (await sharedChromium()).newContext();
    // Fail fast instead of running into the test timeout.
    context.setDefaultTimeout(5000);
  });
  afterEach(async () => {
    await context.close();
    await f.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (attacker !== undefined) {
      attacker.closeAllConnections();
      await new Promise<void>((resolve) => attacker!.close(() => resolve()));
      attacker = undefined;
    }
  });

  it('an approver approves the pending transfer; the agent dispatch runs exactly the displayed call', async () => {
    const requestId = await proposeTransfer('call-ui-1', '{"to":"alice","amount":500,"memo":"rent, June"}');
    const page = await signedInPage();
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'transfer' }).click();
    await page.waitForURL(`${base}/requests/${requestId}`);

    const shown = {
      tool: await page.locator('#tool-name').textContent(),
      args: await page.locator('#arguments').textContent(),
      digest: await page.locator('#args-digest').textContent(),
      principal: await page.locator('#principal').textContent(),
    };
    expect(shown.tool).toBe('transfer');
    expect(shown.principal).toBe('user:42');
    // The stylesheet loads under the CSP (style-src 'self').
    expect(await page.locator('header.top').evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string } }).getComputedStyle(el).backgroundColor)).toBe('rgb(27, 31, 36)');
    if (process.env.COUNTERSIGN_SCREENS_DIR !== undefined) await page.screenshot({ path: `${process.env.COUNTERSIGN_SCREENS_DIR}/request-detail.png`, fullPage: true });

    await page.getByRole('button', { name: 'Approve this call' }).click();
    await page.waitForURL(`${base}/requests/${requestId}?done=approved`);
    expect(await page.getByRole('status').textContent()).toBe('Your approval was recorded.');

    const { token } = await agentCall<{ token: string }>('GET', `/api/v1/requests/${requestId}/token`);
    const proposalId = (await f.ledger.findProposalByCall('run-1', 'call-ui-1'))?.proposalId;
    const outcome = await agentCall<DispatchOutcome>('POST', '/api/v1/dispatch', {
      proposalId,
      runId: 'run-1',
      callId: 'call-ui-1',
      sessionId: 'session-1',
      principal: 'user:42',
      token,
    });
    expect(outcome).toMatchObject({ status: 'executed', toolName: shown.tool });
    expect(f.executions).toEqual([{ tool: shown.tool, args: JSON.parse(shown.args ?? ''), callId: 'call-ui-1' }]);
    const dispatch = (await f.audit.read()).find((r) => r.type === 'dispatch');
    expect(dispatch?.argsDigest).toBe(shown.digest);
  });

  it('hostile arguments stay inert text', async () => {
    const payloads = {
      script: '<script>window.__pwned=1</script>',
      img: '<img src=x onerror="window.__pwned=1">',
      link: 'javascript:alert(1)',
    };
    const requestId = await proposeTransfer('call-xss', { to: 'mallory', amount: 500, ...payloads });
    const page = await signedInPage();
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    for (const path of ['/', `/requests/${requestId}`]) {
      await page.goto(`${base}${path}`);
      expect(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('script').count()).toBe(1);
      expect(await page.locator('script').getAttribute('src')).toBe('/assets/page.js');
      expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
    }
    const text = (await page.locator('#arguments').textContent()) ?? '';
    for (const payload of Object.values(payloads)) expect(text).toContain(JSON.stringify(payload).slice(1, -1));
    expect(await page.locator('#arguments').isVisible()).toBe(true);
    expect(dialogs).toBe(0);
  });

  it('every hostile payload is shown visibly distinct and flagged; a plain call carries no warning', async () => {
    const ids = new Map<string, string>();
    for (const [i, attack] of HOSTILE_CALLS.entries()) {
      ids.set(attack.name, await proposeTransfer(`call-hostile-${i}`, attack.args, 'principal' in attack ? attack.principal : undefined));
    }
    const plainId = await proposeTransfer('call-plain', { amount: 500, to: 'alice', memo: 'rent, June' });
    const page = await signedInPage();
    await page.goto(`${base}/`);
    // The list flags every hostile call, and only those.
    expect(await page.locator('.badge.flagged').count()).toBe(HOSTILE_CALLS.length);
    expect(await page.locator('tr', { has: page.locator(`a[href="/requests/${plainId}"]`) }).locator('.badge.flagged').count()).toBe(0);

    for (const attack of HOSTILE_CALLS) {
      await page.goto(`${base}/requests/${ids.get(attack.name)}`);
      const warnings = page.locator('#display-warnings');
      expect(await warnings.isVisible()).toBe(true);
      const finding = warnings.locator(`li[data-kind="${attack.kind}"]`, { has: page.locator('code.pointer', { hasText: displayText(attack.pointer) }) });
      expect(await finding.count(), attack.name).toBe(1);
      // The escape is on screen, in its own style, where the hidden character was.
      const where = attack.pointer === '/principal' ? page.locator('#principal') : page.locator('#arguments');
      const shownEscape = where.locator('.esc', { hasText: attack.escape }).first();
      expect(await shownEscape.isVisible(), attack.name).toBe(true);
      const style = await shownEscape.evaluate((el) => {
        const s = (globalThis as unknown as { getComputedStyle(e: unknown): { backgroundColor: string; fontWeight: string } }).getComputedStyle(el);
        return { background: s.backgroundColor, weight: s.fontWeight };
      });
      expect(style.background).not.toBe('rgba(0, 0, 0, 0)');
      expect(style.weight).toBe('700');
      // What a person reads never contains the raw character, and the shown arguments still parse to what runs.
      expect(await page.locator('main').innerText()).not.toContain(attack.raw);
      expect(JSON.parse((await page.locator('#arguments').textContent()) ?? '')).toEqual(attack.args);
    }

    await page.goto(`${base}/requests/${plainId}`);
    expect(await page.locator('#display-warnings').count()).toBe(0);
    expect(await page.locator('#schema-problems').count()).toBe(0);
    expect(await page.locator('.flag').count()).toBe(0);
    expect(await page.locator('.esc').count()).toBe(0);
    expect(await page.locator('#arguments').textContent()).toBe(JSON.stringify({ amount: 500, memo: 'rent, June', to: 'alice' }, null, 2));
  });

  it('arguments outside the pinned input schema are flagged on the page', async () => {
    const requestId = await proposeTransfer('call-schema', { amount: '500', to: 42 });
    const page = await signedInPage();
    await page.goto(`${base}/`);
    expect(await page.locator('.badge.flagged').isVisible()).toBe(true);
    await page.goto(`${base}/requests/${requestId}`);
    const box = page.locator('#schema-problems');
    expect(await box.isVisible()).toBe(true);
    expect(await box.locator('code.pointer').allTextContents()).toEqual(expect.arrayContaining(['/arguments/amount', '/arguments/to']));
  });

  it('a forged cross-site POST is refused and the request stays pending', async () => {
    const requestId = await proposeTransfer('call-csrf', { to: 'mallory', amount: 9000 });
    // The form, not signInByRequest: this test is about the cookie the browser got from it.
    const page = await signInWithForm();
    await page.goto(`${base}/requests/${requestId}`);
    // Even a leaked synchronizer token does not help a foreign origin: the Origin check refuses it.
    const leaked = (await page.locator('input[name=csrf]').first().getAttribute('value')) ?? '';
    const target = `${base}/requests/${requestId}/decision`;
    const evil = await startAttacker({
      '/form': `<form id="f" method="post" action="${target}"><input name="csrf" value="${leaked}"><input name="action" value="approve"></form><script>document.getElementById('f').submit()</script>`,
      '/form-no-token': `<form id="f" method="post" action="${target}"><input name="action" value="approve"></form><script>document.getElementById('f').submit()</script>`,
      '/fetch': `<script>fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=${leaked}&action=approve' }).finally(() => { document.title = 'sent' })</script>`,
    });
    for (const path of ['/form', '/form-no-token', '/fetch']) {
      const before = seen.length;
      await page.goto(`${evil}${path}`);
      await waitUntil(() => seen.slice(before).some((s) => s.path === new URL(target).pathname));
      const forged = seen.slice(before).find((s) => s.path === new URL(target).pathname);
      expect(forged).toMatchObject({ method: 'POST', status: 403, origin: evil, fetchSite: 'same-site' });
      // Same site (127.0.0.1), other port: SameSite=Strict lets the cookie through, so the origin check is what stops it.
      expect(forged?.cookie).toMatch(/countersign_session=/);
    }
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
    expect(f.executions).toHaveLength(0);
  });
});
