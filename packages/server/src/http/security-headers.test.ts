import { describe, expect, it } from 'vitest';
import { currentRequestId } from './request-id.ts';
import { isPrebuilt, jsonResponse, SECURITY_HEADERS } from './security-headers.ts';

describe('jsonResponse', () => {
  // Its header record is written out by hand for speed: it must never drift from SECURITY_HEADERS.
  it('carries every security header, JSON content type and no-store, and the request id when there is one', async () => {
    const withId = currentRequestId.run('req-1', () => jsonResponse({ ok: true }, 201));
    const withoutId = jsonResponse({ ok: true });
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
