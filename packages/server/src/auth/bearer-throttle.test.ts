import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_TOKEN, FIONA_TOKEN, makeServerFixture, ORIGIN, type ServerFixture } from '../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

/** An API call from `address`, as `@hono/node-server` would present the connection. */
function getFrom(address: string, path: string, token: string) {
  return f.app.request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${token}` } }, { incoming: { socket: { remoteAddress: address } } });
}

describe('bearer token throttling', () => {
  it('after 20 invalid tokens an address gets 429 too_many_attempts, even with a valid token; other addresses are unaffected', async () => {
    f = makeServerFixture();
    for (let i = 0; i < 20; i += 1) expect((await getFrom('203.0.113.7', '/api/v1/approvals', `guess-${i}`)).status).toBe(401);

    const locked = await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('60');
    expect(await locked.json()).toEqual({ error: { code: 'too_many_attempts', message: expect.any(String) } });
    expect((await getFrom('203.0.113.7', '/api/v1/requests/id-1', AGENT_TOKEN)).status).toBe(429);

    expect((await getFrom('198.51.100.9', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
    expect((await getFrom('198.51.100.9', '/api/v1/approvals', 'guess')).status).toBe(401);

    f.clock.advance(60_000);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
  });

  it('valid tokens do not reset the count, and a locked address gets an HTML 429 on pages', async () => {
    f = makeServerFixture({ tuning: { bearerThrottle: { maxFailures: 2 } } });
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'guess-1')).status).toBe(401);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'guess-2')).status).toBe(401);
    const page = await getFrom('203.0.113.7', '/', FIONA_TOKEN);
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBe('60');
    expect(await page.text()).toContain('too_many_attempts');
  });
});
