import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('not found: a page for browsers, the JSON error for API clients', () => {
  it('an unknown request id is a page that says what to do, in the site layout', async () => {
    f = makeServerFixture();
    const browser = browserSession(f.app, ORIGIN);
    await browser.login('fiona', FIONA_PASSWORD);
    const res = await browser.request('GET', '/requests/no-such-request', { headers: BROWSER });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('<h1>Not found</h1>');
    expect(page).toContain('No such approval request.');
    expect(page).toContain('The link may be mistyped or out of date');
    expect(page).not.toContain('not_found: no such approval request');
    expect(page).toContain('<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">');
  });

  it('an unknown page path: HTML for a browser, JSON for an API client, JSON under /api/ always', async () => {
    f = makeServerFixture();
    const page = await f.send('GET', '/no-such-page', undefined, undefined, BROWSER);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('No such page.');
    const json = await f.send('GET', '/no-such-page', undefined, undefined, { accept: 'application/json' });
    expect(json.status).toBe(404);
    expect(await json.json()).toMatchObject({ error: { code: 'not_found', message: 'no such route' } });
    const api = await f.send('GET', '/api/v1/no-such-route', undefined, undefined, BROWSER);
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('the icon is served at /assets/icon.svg and /favicon.ico (no 404 per page load)', async () => {
    f = makeServerFixture();
    for (const path of ['/assets/icon.svg', '/favicon.ico']) {
      const res = await f.send('GET', path, undefined);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/svg+xml');
      expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
  });
});
