import { type AuditLog, MemoryAuditLog } from '@countersign/core/audit';
import { makeGateFixture, requestView } from '@countersign/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../app/create-app.ts';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture, TEST_AUTH } from '../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

async function signedInFiona() {
  const browser = browserSession(f.app, ORIGIN);
  const res = await browser.login('fiona', FIONA_PASSWORD);
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/');
  return browser;
}

async function detailWithToken(browser: ReturnType<typeof browserSession>, requestId: string) {
  const page = await (await browser.request('GET', `/requests/${requestId}`)).text();
  const csrf = browser.csrfFrom(page);
  expect(csrf).toMatch(/^[\w-]{20,}$/);
  return { page, csrf: csrf! };
}

describe('login and session cookie', () => {
  it('sends visitors without a session to the login form', async () => {
    f = makeServerFixture();
    const res = await f.send('GET', '/', undefined);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/login');
    const login = await f.send('GET', '/login', undefined);
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('<form method="post" action="/login">');
  });

  it('sets an HttpOnly, SameSite=Strict, Path=/ cookie (not Secure over http)', async () => {
    f = makeServerFixture();
    const res = await browserSession(f.app, ORIGIN).login('fiona', FIONA_PASSWORD);
    const cookie = res.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^countersign_session=[^;]+;/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/; Secure/);
  });

  it('over https the cookie is Secure with the __Host- prefix', async () => {
    f = makeServerFixture({ publicOrigin: 'https://approvals.example' });
    const res = await browserSession(f.app, 'https://approvals.example').login('fiona', FIONA_PASSWORD);
    expect(res.headers.get('set-cookie')).toMatch(/^__Host-countersign_session=[^;]+;.*; Secure/);
  });

  it('refuses a wrong password, an unknown user, and a cross-site login', async () => {
    f = makeServerFixture();
    const browser = browserSession(f.app, ORIGIN);
    for (const [user, password] of [
      ['fiona', 'wrong'],
      ['nobody', FIONA_PASSWORD],
      ['fiona', ''],
    ] as const) {
      const res = await browser.login(user, password);
      expect(res.status).toBe(401);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(await res.text()).toContain('Unknown approver id or wrong password.');
    }
    const forged = await browser.request('POST', '/login', { form: { username: 'fiona', password: FIONA_PASSWORD }, headers: { origin: 'http://evil.test' } });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('set-cookie')).toBeNull();
  });

  it('a tampered cookie is no session; logout ends the session even if the cookie is replayed', async () => {
    f = makeServerFixture();
    const browser = await signedInFiona();
    const genuine = browser.cookie!;
    browser.cookie = genuine.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await browser.request('GET', '/')).status).toBe(303);
    browser.cookie = genuine;
    const home = await browser.request('GET', '/');
    expect(home.status).toBe(200);
    const csrf = browser.csrfFrom(await home.text());
    const out = await browser.request('POST', '/logout', { form: { csrf: csrf! } });
    expect(out.status).toBe(303);
    expect(browser.cookie).toBeUndefined();
    browser.cookie = genuine;
    expect((await browser.request('GET', '/')).status).toBe(303);
  });
});

describe('approval pages', () => {
  it('lists pending requests and shows the exact call', async () => {
    f = makeServerFixture();
    const { requestId, argsDigest } = await f.proposeTransfer({ to: 'alice', amount: 500 });
    const browser = await signedInFiona();
    const list = await (await browser.request('GET', '/')).text();
    expect(list).toContain(`href="/requests/${requestId}"`);
    // Identifiers may wrap after a separator (<wbr>); the text reads the same.
    expect(list.replaceAll('<wbr>', '')).toContain('user:42');
    expect(list).toContain('0 of 1');
    const { page } = await detailWithToken(browser, requestId);
    expect(page).toContain(
      '<pre class="args" id="arguments" aria-label="Arguments">{\n  &quot;amount&quot;: 500,\n  &quot;to&quot;: &quot;alice&quot;\n}</pre>',
    );
    expect(page).toContain(argsDigest);
    expect(page).toContain('{&quot;amount&quot;:500,&quot;to&quot;:&quot;alice&quot;}');
    for (const text of ['run-1', 'session-1', 'call-1', 'transfers', 'Approve this call', '2026-06-01 12:10:00 UTC']) expect(page).toContain(text);
  });

  it('approves through the form with a CSRF token from our origin', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const browser = await signedInFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const res = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf, action: 'approve' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/requests/${requestId}?done=approved`);
    expect((await requestView(f.gate, requestId))?.request.decisions).toEqual([expect.objectContaining({ approver: 'fiona', decision: 'approve' })]);
    const after = await (await browser.request('GET', `/requests/${requestId}?done=approved`)).text();
    expect(after).toContain('Your approval was recorded.');
    expect(after).not.toContain('Approve this call');
  });

  it.each([
    ['no token', (_csrf: string) => ({ form: { action: 'approve' } })],
    ['a wrong token', (_csrf: string) => ({ form: { csrf: 'x'.repeat(43), action: 'approve' } })],
    ['a foreign Origin', (csrf: string) => ({ form: { csrf, action: 'approve' }, headers: { origin: 'http://evil.test' } })],
    ['Origin null', (csrf: string) => ({ form: { csrf, action: 'approve' }, headers: { origin: 'null' } })],
    ['a cross-site fetch', (csrf: string) => ({ form: { csrf, action: 'approve' }, headers: { origin: ORIGIN, 'sec-fetch-site': 'cross-site' } })],
    ['the token twice', (csrf: string) => ({ form: { csrf, action: 'approve' }, body: `csrf=${csrf}&csrf=${csrf}&action=approve` })],
  ])('refuses a form post with %s; nothing is decided', async (_name, build) => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const browser = await signedInFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const init = build(csrf) as { form: Record<string, string>; headers?: Record<string, string>; body?: string };
    const res =
      init.body === undefined
        ? await browser.request('POST', `/requests/${requestId}/decision`, init)
        : await f.app.request(`${ORIGIN}/requests/${requestId}/decision`, {
            method: 'POST',
            headers: { cookie: browser.cookie!, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
            body: init.body,
          });
    expect([400, 403]).toContain(res.status);
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });

  it('refuses a post with neither Origin nor Sec-Fetch-Site, and a token from another session', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const browser = await signedInFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const bare = await f.app.request(`${ORIGIN}/requests/${requestId}/decision`, {
      method: 'POST',
      headers: { cookie: browser.cookie!, 'content-type': 'application/x-www-form-urlencoded' },
      body: `csrf=${csrf}&action=approve`,
    });
    expect(bare.status).toBe(403);
    const other = await signedInFiona();
    const res = await other.request('POST', `/requests/${requestId}/decision`, { form: { csrf, action: 'approve' } });
    expect(res.status).toBe(403);
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });

  it('the JSON API refuses a cookie-authenticated cross-site post', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const browser = await signedInFiona();
    const res = await f.app.request(`${ORIGIN}/api/v1/decisions`, {
      method: 'POST',
      headers: { cookie: browser.cookie!, 'content-type': 'application/json', origin: 'http://evil.test' },
      body: JSON.stringify({ requestId, decision: 'approve' }),
    });
    expect(res.status).toBe(403);
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });

  it('renders hostile arguments and principals inert', async () => {
    f = makeServerFixture();
    const hostile = {
      to: '<script>window.__pwned=1</script>',
      memo: '<img src=x onerror="window.__pwned=1">',
      link: 'javascript:alert(1)',
      amount: 500,
    };
    const res = await f.agent(
      'POST',
      '/api/v1/proposals',
      { ...f.proposalBody([{ id: 'x-1', name: 'transfer', arguments: hostile }]), principal: '"><img src=y onerror=alert(2)>' },
    );
    const requestId = ((await res.json()) as { outcomes: Array<{ requestId: string }> }).outcomes[0]!.requestId;
    const browser = await signedInFiona();
    const pages = [await (await browser.request('GET', '/')).text(), (await detailWithToken(browser, requestId)).page];
    for (const page of pages) {
      // The one script is the page's own, from this origin; nothing from the payload.
      expect(page.match(/<script/gi)).toEqual(['<script']);
      expect(page).toContain('<script src="/assets/page.js" defer></script>');
      expect(page).not.toMatch(/<img/i);
      expect(page).not.toMatch(/href="javascript:/i);
      expect(page.match(/<[^>]+\sonerror=/i)?.[0]).toBeUndefined();
      // Identifiers may wrap (<wbr>) inside long runs; the text is still escaped whole.
      expect(page.replaceAll('<wbr>', '')).toContain('&quot;&gt;&lt;img src=y onerror=alert(2)&gt;');
    }
    expect(pages[1]).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(pages[1]).toContain('javascript:alert(1)');
  });

  it('shows a refused edit inline, keeps what was typed, and changes nothing', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const browser = await signedInFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const typed = '{"amount": 5, "amount": 500000, "to": "<b>mallory</b>"}';
    const res = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf, action: 'edit', arguments: typed } });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toMatch(/role="alert"[^>]*>.*invalid_arguments.*duplicate_key/s);
    expect(page).toContain('{&quot;amount&quot;: 5, &quot;amount&quot;: 500000, &quot;to&quot;: &quot;&lt;b&gt;mallory&lt;/b&gt;&quot;}</textarea>');
    expect((await requestView(f.gate, requestId))?.status).toBe('pending');
  });

  it('edit-and-approve goes to the new linked request', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer({ amount: 900, to: 'mallory' });
    const browser = await signedInFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const res = await browser.request('POST', `/requests/${requestId}/decision`, {
      form: { csrf, action: 'edit', arguments: '{\n  "amount": 90,\n  "to": "alice"\n}', reason: 'typo' },
    });
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(/^\/requests\/[^/?]+\?done=edited$/);
    const edited = await (await browser.request('GET', location)).text();
    expect(edited).toContain('Your edited call was recorded and approved.');
    expect(edited).toContain('{\n  &quot;amount&quot;: 90,\n  &quot;to&quot;: &quot;alice&quot;\n}');
    const original = await (await browser.request('GET', `/requests/${requestId}`)).text();
    const editedId = location.slice('/requests/'.length, location.indexOf('?'));
    expect(original).toContain(`<strong>Edited</strong> — replaced by <a href="/requests/${editedId}" id="edited-link">`);
    expect(original).toContain('<span class="badge edited">edited</span>');
    expect(original).not.toContain('badge denied');
    expect(original).toContain('replaced it with an edited call');
  });

  it('a non-eligible approver gets a 404 page for the request', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const browser = browserSession(f.app, ORIGIN);
    await browser.login('oscar', 'oscar-password');
    const res = await browser.request('GET', `/requests/${requestId}`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('transfer');
  });
});

describe('audit page', () => {
  it('shows records and an ok chain', async () => {
    f = makeServerFixture();
    await f.proposeTransfer();
    // A record type with an underscore (one call's records are all plain words since format 2).
    await f.audit.append({ type: 'definition_pinned', at: f.clock(), toolName: 'transfer' });
    const browser = await signedInFiona();
    const page = await (await browser.request('GET', '/audit')).text();
    expect(page).toMatch(/Chain status: ok — \d+ records verified/);
    // Codes may wrap after an underscore (<wbr>) so the table fits its box; the text reads the same.
    expect(page).toContain('definition_<wbr>pinned');
    expect(page.replaceAll('<wbr>', '')).toContain('definition_pinned');
  });

  it('says where the chain breaks when a stored record was edited', async () => {
    const inner = new MemoryAuditLog();
    const tampered: AuditLog = {
      append: (e) => inner.append(e),
      head: () => inner.head(),
      read: async (opts) => (await inner.read(opts)).map((r) => (r.seq === 1 ? { ...r, actor: 'someone-else' } : r)),
    };
    const gate = makeGateFixture({ audit: tampered });
    const { app, close } = createApp({ gate: gate.gate, auth: TEST_AUTH, publicOrigin: ORIGIN });
    f = { close } as ServerFixture;
    await gate.gate.propose(gate.call());
    const browser = browserSession(app, ORIGIN);
    await browser.login('fiona', FIONA_PASSWORD);
    const page = await (await browser.request('GET', '/audit')).text();
    expect(page).toContain('Chain status: broken at seq 1 (hash_mismatch)');
  });
});

describe('revoke from the request page', () => {
  async function approvedByFiona() {
    const { requestId, callId } = await f.proposeTransfer();
    expect((await f.fiona('POST', '/api/v1/decisions', { requestId, decision: 'approve' })).status).toBe(200);
    return { requestId, callId };
  }

  it('an approved, unused call has a Revoke button; a pending one has none', async () => {
    f = makeServerFixture();
    const browser = await signedInFiona();
    const pending = await f.proposeTransfer({ amount: 900, to: 'carol' }, 'call-9');
    expect((await detailWithToken(browser, pending.requestId)).page).not.toContain('value="revoke"');
    const { requestId } = await approvedByFiona();
    const { page } = await detailWithToken(browser, requestId);
    expect(page).toContain(`<form method="post" action="/requests/${requestId}/decision">`);
    expect(page).toContain('<button class="danger" type="submit" name="action" value="revoke">Revoke approval</button>');
  });

  it('revoking shows the request as revoked on its page and in the list; the agent cannot run it', async () => {
    f = makeServerFixture();
    const browser = await signedInFiona();
    const { requestId, callId } = await approvedByFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const res = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf, action: 'revoke' } });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/requests/${requestId}?done=revoked`);
    expect((await requestView(f.gate, requestId))?.status).toBe('revoked');

    const detail = await (await browser.request('GET', res.headers.get('location')!)).text();
    expect(detail).toContain('<span class="badge revoked">revoked</span>');
    expect(detail).toContain('You revoked this approval. The call will not run.');
    expect(detail).toContain('id="state-banner" data-state="revoked"><strong>Revoked — nothing ran</strong>');
    expect(detail).not.toContain('value="revoke"');
    const list = await (await browser.request('GET', '/?status=revoked')).text();
    expect(list).toContain(`/requests/${requestId}`);
    expect(list).toContain('<span class="badge revoked">revoked</span>');

    const dispatched = (await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId))).json()) as { status: string };
    expect(dispatched.status).not.toBe('executed');
    expect(f.executions).toHaveLength(0);
  });

  it('attack: a revoke form post without the session CSRF token, or with a reason, changes nothing', async () => {
    f = makeServerFixture();
    const browser = await signedInFiona();
    const { requestId } = await approvedByFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const forged = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf: 'x'.repeat(43), action: 'revoke' } });
    expect(forged.status).toBe(403);
    const withReason = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf, action: 'revoke', reason: 'why not' } });
    expect(withReason.status).toBe(400);
    expect((await requestView(f.gate, requestId))?.status).toBe('approved');
  });

  it('a consumed call shows no Revoke button, and a stale form says already_consumed', async () => {
    f = makeServerFixture();
    const browser = await signedInFiona();
    const { requestId, callId } = await approvedByFiona();
    const { csrf } = await detailWithToken(browser, requestId);
    const { token } = (await (await f.agent('GET', `/api/v1/requests/${requestId}/token`)).json()) as { token: string };
    expect(((await (await f.agent('POST', '/api/v1/dispatch', await f.dispatchBody(callId, token))).json()) as { status: string }).status).toBe('executed');
    expect((await detailWithToken(browser, requestId)).page).not.toContain('value="revoke"');
    const stale = await browser.request('POST', `/requests/${requestId}/decision`, { form: { csrf, action: 'revoke' } });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('<span class="mono">already_consumed</span>');
    expect((await requestView(f.gate, requestId))?.status).toBe('consumed');
  });
});
