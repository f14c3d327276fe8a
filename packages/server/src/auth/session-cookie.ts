import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { expectedOrigin } from './same-origin.ts';

const PLAIN_NAME = 'countersign_session';
// The __Host- prefix makes browsers refuse the cookie unless Secure, Path=/ and host-only.
const SECURE_NAME = '__Host-countersign_session';

function isSecure(c: Context, publicOrigin: string | undefined): boolean {
  return expectedOrigin(publicOrigin, c.req.url).startsWith('https:');
}

export function readSessionCookie(c: Context, publicOrigin: string | undefined): string | undefined {
  return getCookie(c, isSecure(c, publicOrigin) ? SECURE_NAME : PLAIN_NAME);
}

export function writeSessionCookie(c: Context, publicOrigin: string | undefined, value: string, maxAgeSeconds: number): void {
  const secure = isSecure(c, publicOrigin);
  setCookie(c, secure ? SECURE_NAME : PLAIN_NAME, value, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/',
    secure,
    maxAge: maxAgeSeconds,
  });
}

export function clearSessionCookie(c: Context, publicOrigin: string | undefined): void {
  const secure = isSecure(c, publicOrigin);
  deleteCookie(c, secure ? SECURE_NAME : PLAIN_NAME, { httpOnly: true, sameSite: 'Strict', path: '/', secure });
}
