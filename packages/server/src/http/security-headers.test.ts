import type { Context } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../app/env.ts';
import { isPrebuilt, jsonResponse, SECURITY_HEADERS } from './security-headers.ts';

// Only what jsonResponse reads from a route's context: the request id the request log set.
const contextWith = (requestId: string | undefined) => ({ get: (key: string) => (key === 'requestId' ? requestId : undefined) }) as unknown as Context<AppEnv>;

describe('jsonResponse', () => {
  // Its header record is written out by hand for speed: it must never drift from SECURITY_HEADERS.
  it('carries every security header, JSON content type and no-store, and the request id when there is one', async () => {
    const withId = jsonResponse(contextWith('req-1'), { ok: true }, 201);
    const withoutId = jsonResponse(contextWith(undefined), { ok: true });
    for (const response of [withId, withoutId]) {
      expect(isPrebuilt(response)).toBe(true);
      for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(response.headers.get(name)).toBe(value);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(withId.status).toBe(201);
    expect(withId.headers.get('x-request-id')).toBe('req-1');
    expect(withoutId.headers.has('x-request-id')).toBe(false);
    expect([...withId.headers.keys()]).toHaveLength(Object.keys(SECURITY_HEADERS).length + 3);
  });

  it('only its own responses count as prebuilt: any other response gets the headers from the middleware', () => {
    expect(isPrebuilt(new Response('{}', { headers: { 'content-type': 'application/json' } }))).toBe(false);
    expect(isPrebuilt(Response.json({}))).toBe(false);
  });
});
