import { Hono } from 'hono';
import { html } from 'hono/html';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { expectedOrigin, isSameOriginRequest } from '../../auth/same-origin.ts';
import { clearSessionCookie, readSessionCookie, writeSessionCookie } from '../../auth/session-cookie.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readForm } from '../../http/read-form.ts';
import { layout } from '../layout.ts';
import { loginPage } from '../pages/login-page.ts';
import { csrfTokenFor, layoutUser, pageApprover, readCheckedForm, requirePageApprover } from '../page-auth.ts';

/** GET/POST /login and GET/POST /logout. */
export function sessionRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/login', (c) => c.html(loginPage({ notice: c.req.query('signed-out') === '1' ? 'You are signed out.' : undefined })));

  routes.post('/login', async (c) => {
    // Login CSRF: a foreign page must not sign the browser in as someone else.
    if (!isSameOriginRequest((n) => c.req.header(n), expectedOrigin(services.publicOrigin, c.req.url))) {
      throw new ApiError('csrf_rejected', 'cross-site form post refused');
    }
    const form = await readForm(c, ['username', 'password']);
    const username = form.username ?? '';
    const approver = services.authenticator.login(username, form.password ?? '');
    if (approver === undefined) {
      return c.html(loginPage({ error: 'Unknown approver id or wrong password.', username }), 401);
    }
    const ttl = services.tuning.sessionTtlSeconds;
    const session = services.sessions.create(approver.id, services.gate.deps.clock(), ttl);
    writeSessionCookie(c, services.publicOrigin, session.value, ttl);
    return c.redirect('/', 303);
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
    const now = services.gate.deps.clock();
    const claims = services.sessions.open(readSessionCookie(c, services.publicOrigin), now);
    // The cookie stays valid until its expiry unless this process remembers the logout.
    if (claims !== undefined) services.sessions.end(claims, now);
    clearSessionCookie(c, services.publicOrigin);
    return c.redirect('/login?signed-out=1', 303);
  });
  return routes;
}
