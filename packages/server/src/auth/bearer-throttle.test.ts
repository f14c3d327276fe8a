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
  it('two clients behind one address: the one repeating a wrong token is throttled after 20, the other keeps working', async () => {
    f = makeServerFixture();
    // A broken runtime behind the shared proxy address keeps sending its stale token.
    for (let i = 0; i < 20; i += 1) {
      expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'stale-token')).status).toBe(401);
      // Its neighbour, same address, valid token, all along.
      expect((await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
    }
    const locked = await getFrom('203.0.113.7', '/api/v1/approvals', 'stale-token');
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('60');
    expect(await locked.json()).toEqual({ error: { code: 'too_many_attempts', message: expect.any(String) } });
    // Still locked however often it retries; the neighbours are not.
    for (let i = 0; i < 30; i += 1) expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'stale-token')).status).toBe(429);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
    expect((await getFrom('203.0.113.7', '/api/v1/requests/id-1', AGENT_TOKEN)).status).not.toBe(429);

    f.clock.advance(60_000);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'stale-token')).status).toBe(401);
  });

  it('guessing with a new token each time locks the address after 100 (the backstop), valid tokens included; other addresses go on', async () => {
    f = makeServerFixture();
    for (let i = 0; i < 99; i += 1) expect((await getFrom('203.0.113.7', '/api/v1/approvals', `guess-${i}`)).status).toBe(401);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'guess-99')).status).toBe(401);
    // Locked before any token is compared: a right guess learns nothing either.
    const locked = await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN);
    expect(locked.status).toBe(429);
    expect((await getFrom('203.0.113.7', '/api/v1/requests/id-1', AGENT_TOKEN)).status).toBe(429);
    expect((await getFrom('198.51.100.9', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
    f.clock.advance(60_000);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
  });

  it('the per-token key is the token presented, not only its prefix: tokens sharing a long start count apart', async () => {
    f = makeServerFixture({ tuning: { bearerThrottle: { maxFailures: 2 } } });
    const shared = 'x'.repeat(64);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', `${shared}-a`)).status).toBe(401);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', `${shared}-b`)).status).toBe(401);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', `${shared}-a`)).status).toBe(401);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', `${shared}-a`)).status).toBe(429);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', `${shared}-c`)).status).toBe(401);
  });

  it('valid tokens do not reset the count, and a locked client gets an HTML 429 on pages', async () => {
    f = makeServerFixture({ tuning: { bearerAddressThrottle: { maxFailures: 2 } } });
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'guess-1')).status).toBe(401);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', FIONA_TOKEN)).status).toBe(200);
    expect((await getFrom('203.0.113.7', '/api/v1/approvals', 'guess-2')).status).toBe(401);
    const page = await getFrom('203.0.113.7', '/', FIONA_TOKEN);
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toBe('60');
    expect(await page.text()).toContain('too_many_attempts');
  });
});
