import { afterEach, describe, expect, it } from 'vitest';
import { FIONA_PASSWORD, makeServerFixture, ORIGIN, type ServerFixture } from '../../testing/server-fixture.ts';

let f: ServerFixture;
afterEach(async () => {
  await f.close();
});

const MINUTE = 60_000;

/** A login form post from `address`, as `@hono/node-server` would present the connection. */
function loginFrom(address: string, username: string, password: string) {
  return f.app.request(
    `${ORIGIN}/login`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
      body: new URLSearchParams({ username, password }).toString(),
    },
    { incoming: { socket: { remoteAddress: address } } },
  );
}

async function failTimes(address: string, username: string, times: number) {
  for (let i = 0; i < times; i += 1) expect((await loginFrom(address, username, `wrong-${i}`)).status).toBe(401);
}

describe('login throttling', () => {
  it('after 5 wrong passwords even the right one is refused with 429 and Retry-After; after the lockout it works and resets the count', async () => {
    f = makeServerFixture();
    await failTimes('203.0.113.7', 'fiona', 5);
    const locked = await loginFrom('203.0.113.7', 'fiona', FIONA_PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('60');
    expect(locked.headers.get('set-cookie')).toBeNull();
    expect(await locked.text()).toContain('Too many failed sign-in attempts. Try again in 1 minute.');
    // The id is locked, wherever the attempt comes from.
    expect((await loginFrom('198.51.100.9', 'fiona', FIONA_PASSWORD)).status).toBe(429);

    f.clock.advance(MINUTE);
    const ok = await loginFrom('203.0.113.7', 'fiona', FIONA_PASSWORD);
    expect(ok.status).toBe(303);
    expect(ok.headers.get('set-cookie')).toMatch(/^countersign_session=/);

    // The success forgot the count and the doubling: four more failures are allowed, the fifth locks for 1 minute again.
    await failTimes('203.0.113.7', 'fiona', 5);
    const again = await loginFrom('203.0.113.7', 'fiona', FIONA_PASSWORD);
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toBe('60');
  });

  it('a locked unknown id and a locked known id get identical responses', async () => {
    f = makeServerFixture();
    await failTimes('203.0.113.7', 'fiona', 5);
    await failTimes('198.51.100.9', 'nobody', 5);
    const known = await loginFrom('192.0.2.1', 'fiona', FIONA_PASSWORD);
    const unknown = await loginFrom('192.0.2.2', 'nobody', FIONA_PASSWORD);
    expect(known.status).toBe(429);
    expect(unknown.status).toBe(known.status);
    expect(unknown.headers.get('retry-after')).toBe(known.headers.get('retry-after'));
    expect(await unknown.text()).toBe(await known.text());
  });

  it('counts the id as typed, normalized: case and surrounding spaces share one budget', async () => {
    f = makeServerFixture();
    for (const id of ['fiona', 'Fiona', ' FIONA ', 'fiona', 'ｆｉｏｎａ']) expect((await loginFrom('203.0.113.7', id, 'wrong')).status).toBe(401);
    expect((await loginFrom('203.0.113.7', 'fiona', FIONA_PASSWORD)).status).toBe(429);
  });

  it('locks an address that guesses across many ids, without locking the ids elsewhere', async () => {
    f = makeServerFixture();
    for (let i = 0; i < 20; i += 1) expect((await loginFrom('203.0.113.7', `user-${i}`, 'guess')).status).toBe(401);
    const locked = await loginFrom('203.0.113.7', 'fiona', FIONA_PASSWORD);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('60');
    // IPv6 peers are counted per /64, so rotating the interface id does not help.
    for (let i = 0; i < 20; i += 1) await loginFrom(`2001:db8:1:2::${i + 1}`, `user-${i}`, 'guess');
    expect((await loginFrom('2001:db8:1:2::ffff', 'fiona', FIONA_PASSWORD)).status).toBe(429);
    expect((await loginFrom('198.51.100.9', 'fiona', FIONA_PASSWORD)).status).toBe(303);
  });

  it('limits are tunable, and without a known address the id is still counted', async () => {
    f = makeServerFixture({ tuning: { loginThrottle: { maxFailures: 2, lockoutMs: 5 * MINUTE } } });
    const post = (password: string) =>
      f.app.request(`${ORIGIN}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
        body: new URLSearchParams({ username: 'oscar', password }).toString(),
      });
    expect((await post('wrong')).status).toBe(401);
    expect((await post('wrong')).status).toBe(401);
    const locked = await post('oscar-password');
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('300');
    expect(await locked.text()).toContain('Try again in 5 minutes.');
  });
});
