import { afterEach, describe, expect, it } from 'vitest';
import { browserSession } from '../testing/browser-session.ts';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';
import { loginUrlFor, safeNext } from './safe-next.ts';

// Every way a `next` could leave the site, or confuse a browser into leaving it.
const OPEN_REDIRECTS = [
  'https://evil.example/requests/1',
  '//evil.example/requests/1',
  '/\\evil.example',
  '\\\\evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  ' /requests/1',
  'javascript:alert(1)',
  'data:text/html,hi',
  'requests/1',
  '',
  `/${'a'.repeat(600)}`,
  '/login',
  '/logout?x=1',
  // Dot segments collapse when parsed: each of these parses to the path //evil.example.
  '/.//evil.example',
  '/a/..//evil.example',
  '/%2e//evil.example',
  '/./%2e/..//evil.example/login',
];

describe('safeNext', () => {
  it.each(OPEN_REDIRECTS)('refuses %j (back to /)', (next) => {
    expect(safeNext(next)).toBe('/');
  });

  it('keeps same-site paths and their query, rebuilt from the parsed URL', () => {
    expect(safeNext('/requests/abc-123')).toBe('/requests/abc-123');
    expect(safeNext('/?status=denied&tool=transfer')).toBe('/?status=denied&tool=transfer');
    expect(safeNext('/audit?afterSeq=100#frag')).toBe('/audit?afterSeq=100');
    expect(safeNext('/requests/../audit')).toBe('/audit');
    expect(safeNext(undefined)).toBe('/');
    expect(loginUrlFor('/requests/a b')).toBe('/login');
    expect(loginUrlFor('/requests/r-1?done=approved')).toBe('/login?next=%2Frequests%2Fr-1%3Fdone%3Dapproved');
  });
});

describe('deep link: a request opened while signed out returns to it after sign-in', () => {
  let f: ServerFixture;
  afterEach(async () => {
    await f.close();
  });

  it('GET /requests/:id → login with next → the same request', async () => {
    f = makeServerFixture();
    const { requestId } = await f.proposeTransfer();
    const browser = browserSession(f.app, ORIGIN);
    const first = await browser.request('GET', `/requests/${requestId}`);
    expect(first.status).toBe(303);
    const login = first.headers.get('location')!;
    expect(login).toBe(`/login?next=${encodeURIComponent(`/requests/${requestId}`)}`);
    const form = await (await browser.request('GET', login)).text();
    expect(form).toContain(`<input type="hidden" name="next" value="/requests/${requestId}">`);
    const signedIn = await browser.request('POST', '/login', { form: { username: 'fiona', password: FIONA_PASSWORD, next: `/requests/${requestId}` } });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(`/requests/${requestId}`);
    expect((await browser.request('GET', `/requests/${requestId}`)).status).toBe(200);
  });

  it('a wrong password keeps the return path; an off-site next is never followed nor echoed', async () => {
    f = makeServerFixture();
    const browser = browserSession(f.app, ORIGIN);
    const wrong = await (await browser.request('POST', '/login', { form: { username: 'fiona', password: 'nope', next: '/audit' } })).text();
    expect(wrong).toContain('<input type="hidden" name="next" value="/audit">');
    for (const next of OPEN_REDIRECTS) {
      const page = await (await browser.request('GET', `/login?next=${encodeURIComponent(next)}`)).text();
      expect(page).not.toContain('name="next"');
      const res = await browserSession(f.app, ORIGIN).request('POST', '/login', { form: { username: 'fiona', password: FIONA_PASSWORD, next } });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/');
    }
  });
});
