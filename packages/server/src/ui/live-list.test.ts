import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import type { BrowserContext } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserTestsRun, sharedChromium, signedInContext, submitLogin } from '../testing/chromium.ts';
import { AGENT_TOKEN, FIONA_PASSWORD, makeServerFixture, type ServerFixture } from '../testing/server-fixture.ts';

let f: ServerFixture;
let server: ServerType;
let base: string;
/** The test's browser contexts, closed before the server: an open page's event stream would keep it from closing. */
let contexts: BrowserContext[] = [];

async function propose(callId: string, args: unknown): Promise<string> {
  const res = await fetch(`${base}/api/v1/proposals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${AGENT_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ runId: 'run-1', sessionId: 'session-1', principal: 'user:42', toolCalls: [{ id: callId, name: 'transfer', arguments: args }] }),
  });
  return ((await res.json()) as { outcomes: Array<{ requestId: string }> }).outcomes[0]!.requestId;
}

describe.skipIf(!browserTestsRun)('the pages in Chromium: live list, copy, deep link', () => {
  beforeEach(async () => {
    f = makeServerFixture({ publicOrigin: undefined });
    server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: f.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await Promise.all(contexts.map((c) => c.close()));
    contexts = [];
    // Closing the fixture ends its event streams, so the server can close.
    await f.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('a deep link opened signed out comes back to the request after sign-in; a new request then appears on the list without a reload', async () => {
    const first = await propose('call-1', { amount: 500, to: 'alice' });
    const context = await (await sharedChromium()).newContext({ viewport: { width: 390, height: 800 } });
    contexts.push(context);
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    // Failed loads (the browser's own /favicon.ico aside): the script, the stream and the reload must all answer.
    page.on('response', (r) => {
      if (r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico') errors.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(`${base}/requests/${first}`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await submitLogin(page, 'fiona', FIONA_PASSWORD, `${base}/requests/${first}`);
    expect(await page.locator('#tool-name').textContent()).toBe('transfer');

    await page.goto(`${base}/`);
    // Five seconds, as decision-first-browser.test.ts polls: expect.poll's default second was too short on a loaded machine (count() itself took longer).
    await expect.poll(() => page.locator('tr[data-request]').count(), { timeout: 5000 }).toBe(1);
    // The page is left alone: no reload, no navigation. The new request must show up by itself.
    let navigations = 0;
    page.on('framenavigated', () => navigations++);
    const second = await propose('call-2', { amount: 900, to: 'bob' });
    await page.locator(`tr[data-request="${second}"]`).waitFor();
    expect(navigations).toBe(0);
    expect(await page.locator('#live-status').textContent()).toMatch(/^List updated: 1 new at /);
    // Newest first, and the stream follows on: a third one arrives too.
    expect(await page.locator('tr[data-request]').first().getAttribute('data-request')).toBe(second);
    const third = await propose('call-3', { amount: 1000, to: 'carol' });
    await page.locator(`tr[data-request="${third}"]`).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it('a shortened digest has a Copy button that copies the full value; without the script the full value is one tap away', async () => {
    const requestId = await propose('call-1', { amount: 500, to: 'alice' });
    // Signed in by request: the deep link through the sign-in form is the test above's (and, without JavaScript, local-time-browser's).
    const context = await signedInContext(base, 'fiona', FIONA_PASSWORD, { viewport: { width: 390, height: 800 } });
    contexts.push(context);
    context.setDefaultTimeout(15_000);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    await page.goto(`${base}/requests/${requestId}`);
    const full = (await page.locator('#args-digest').textContent()) ?? '';
    expect(full).toMatch(/^[0-9a-f]{64}$/);
    expect(await page.locator('#args-digest').isVisible()).toBe(false);
    await page.locator('.digest', { has: page.locator('#args-digest') }).getByRole('button', { name: 'Copy the full value' }).click();
    expect(await page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText())).toBe(full);
    await context.close();

    const plain = await signedInContext(base, 'fiona', FIONA_PASSWORD, { viewport: { width: 390, height: 800 }, javaScriptEnabled: false });
    contexts.push(plain);
    const noScript = await plain.newPage();
    await noScript.goto(`${base}/requests/${requestId}`);
    expect(await noScript.locator('button.copy').count()).toBe(0);
    await noScript.locator('.digest summary', { has: noScript.locator('code') }).first().click();
    expect(await noScript.locator('#args-digest').isVisible()).toBe(true);
    expect(await noScript.locator('#args-digest').textContent()).toBe(full);
  }, 60_000);
});
