import { Hono } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { clientAddress } from '../../auth/client-address.ts';
import { expectedOrigin, isSameOriginRequest } from '../../auth/same-origin.ts';
import { clearSessionCookie, readSessionCookie, writeSessionCookie } from '../../auth/session-cookie.ts';
import { loginIdKey, tooManyAttempts } from '../../auth/throttles.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readForm } from '../../http/read-form.ts';
import { layout } from '../layout.ts';
import { loginPage } from '../pages/login-page.ts';
import { safeNext } from '../safe-next.ts';
import { csrfTokenFor, layoutUser, pageApprover, readCheckedForm, requirePageApprover } from '../page-auth.ts';

function lockedMessage(retryAfterMs: number): string {
  const minutes = Math.ceil(retryAfterMs / 60_000);
  return `Too many failed sign-in attempts. Try again in ${minutes === 1 ? '1 minute' : `${minutes} minutes`}.`;
}

/** GET/POST /login and GET/POST /logout. */
export function sessionRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/login', (c) =>
    c.html(loginPage({ notice: c.req.query('signed-out') === '1' ? 'You are signed out.' : undefined, next: safeNext(c.req.query('next')) })),
  );

  routes.post('/login', async (c) => {
    // Login CSRF: a foreign page must not sign the browser in as someone else.
    if (!isSameOriginRequest((n) => c.req.header(n), expectedOrigin(services.publicOrigin, c.req.url))) {
      throw new ApiError('csrf_rejected', 'cross-site form post refused');
    }
    const form = await readForm(c, ['username', 'password', 'next']);
    const next = safeNext(form.next);
    const username = form.username ?? '';
    const now = services.gate.now();
    const { loginById, loginByAddress } = services.throttles;
    const idKey = loginIdKey(username);
    const address = clientAddress(c);
    // Checked before the password, and the same for ids that exist and ids that do not:
    // a locked key gets no answer about the password and no hint about the account.
    const retryAfterMs = Math.max(loginById.retryAfterMs(idKey, now), address === undefined ? 0 : loginByAddress.retryAfterMs(address, now));
    if (retryAfterMs > 0) {
      services.countAuthFailure('throttled');
      const refusal = tooManyAttempts(c, retryAfterMs);
      return c.html(loginPage({ error: lockedMessage(retryAfterMs), next }), refusal.status);
    }
    const approver = services.authenticator.login(username, form.password ?? '');
    if (approver === undefined) {
      services.countAuthFailure('password');
      loginById.recordFailure(idKey, now);
      if (address !== undefined) loginByAddress.recordFailure(address, now);
      return c.html(loginPage({ error: 'Unknown approver id or wrong password.', username, next }), 401);
    }
    // Only the id's count: a success with one account must not reset the address's guesses at others.
    loginById.reset(idKey);
    const ttl = services.tuning.sessionTtlSeconds;
    const session = services.sessions.create(approver.id, now, ttl);
    writeSessionCookie(c, services.publicOrigin, session.value, ttl);
    return c.redirect(next, 303);
  });

  routes.get('/logout', requirePageApprover(services), (c) => {
    const identity = pageApprover(c);
    const token = csrfTokenFor(services, identity);
    return c.html(
      layout({
        title: 'Sign out',
        user: layoutUser(services, identity),
        body: html`<div class="card"><h1>Sign out</h1>
${
  identity.via === 'session' && token !== undefined
    ? html`<form method="post" action="/logout"><input type="hidden" name="csrf" value="${token}"><button class="secondary" type="submit">Sign out now</button></form>`
    : html`<p>You are signed in through your organisation's proxy; sign out there.</p>`
}</div>`,
      }),
    );
  });

  routes.post('/logout', requirePageApprover(services), async (c) => {
    await readCheckedForm(c, services, []);
    const now = services.gate.now();
    const claims = await services.sessions.check(readSessionCookie(c, services.publicOrigin), now);
    // The signed cookie stays valid until its expiry unless the store remembers the logout.
    if (claims !== undefined) await services.sessions.end(claims, now);
    clearSessionCookie(c, services.publicOrigin);
    return c.redirect('/login?signed-out=1', 303);
  });
  return routes;
}
