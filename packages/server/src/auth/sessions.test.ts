import { LedgerError } from '@countersign/core/ledger';
import { MemorySessionRevocations, type SessionRevocationStore } from '@countersign/core/session';
import { describe, expect, it } from 'vitest';
import { Sessions } from './sessions.ts';

const SECRET = 'a-session-secret-of-at-least-32-bytes!!';
const now = Date.UTC(2026, 5, 1);

describe('Sessions', () => {
  it('opens its own cookie until it expires', () => {
    const sessions = new Sessions(SECRET);
    const { value, claims } = sessions.create('fiona', now, 60);
    expect(sessions.open(value, now)).toEqual(claims);
    expect(sessions.open(value, now + 59_999)).toEqual(claims);
    expect(sessions.open(value, now + 60_000)).toBeUndefined();
  });

  it('refuses forged, altered and foreign cookies', () => {
    const sessions = new Sessions(SECRET);
    const { value } = sessions.create('fiona', now, 60);
    const [payload, mac] = value.split('.') as [string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ sid: 'x', uid: 'admin', exp: now + 1e9 })).toString('base64url');
    for (const bad of [`${forgedPayload}.${mac}`, `${payload}.${mac.slice(1)}`, `${payload}.`, payload, '', 'a.b.c', 'x'.repeat(5000)]) {
      expect(sessions.open(bad, now)).toBeUndefined();
    }
    expect(new Sessions('another-secret-of-at-least-32-bytes!!!!').open(value, now)).toBeUndefined();
    expect(new Sessions(undefined).open(value, now)).toBeUndefined();
  });

  it('ends a session on logout, in every Sessions on the same store (restart, replica)', async () => {
    const store = new MemorySessionRevocations();
    const sessions = new Sessions(SECRET, store);
    const { value, claims } = sessions.create('fiona', now, 60);
    const other = sessions.create('fiona', now, 60);
    expect(await sessions.check(value, now)).toEqual(claims);
    await sessions.end(claims, now);
    expect(await sessions.check(value, now)).toBeUndefined();
    const restarted = new Sessions(SECRET, store);
    expect(await restarted.check(value, now)).toBeUndefined();
    expect(await restarted.check(other.value, now)).toEqual(other.claims);
  });

  it('fails closed when the store cannot answer: store_unavailable, never a session', async () => {
    const down: SessionRevocationStore = {
      revoke: () => Promise.reject(new LedgerError('store_unavailable', 'down')),
      isRevoked: () => Promise.reject(new LedgerError('store_unavailable', 'down')),
    };
    const sessions = new Sessions(SECRET, down);
    const { value, claims } = sessions.create('fiona', now, 60);
    await expect(sessions.check(value, now)).rejects.toMatchObject({ code: 'store_unavailable', status: 503 });
    await expect(sessions.end(claims, now)).rejects.toMatchObject({ code: 'store_unavailable' });
    // A cookie that is not genuine never reaches the store.
    expect(await sessions.check('forged.cookie', now)).toBeUndefined();
  });

  it('CSRF tokens are bound to the session key and are not session signatures', () => {
    const sessions = new Sessions(SECRET);
    const token = sessions.csrfToken('session:abc');
    expect(sessions.checkCsrf('session:abc', token)).toBe(true);
    expect(sessions.checkCsrf('session:abd', token)).toBe(false);
    expect(sessions.checkCsrf('session:abc', undefined)).toBe(false);
    expect(sessions.checkCsrf('session:abc', '')).toBe(false);
    const { value } = sessions.create('fiona', now, 60);
    const payload = value.split('.')[0]!;
    expect(sessions.open(`${payload}.${sessions.csrfToken(payload)}`, now)).toBeUndefined();
  });

  it('refuses a short secret', () => {
    expect(() => new Sessions('short')).toThrow(expect.objectContaining({ code: 'invalid_session_secret' }));
  });
});
