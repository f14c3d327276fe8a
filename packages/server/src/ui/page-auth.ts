import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app/env.ts';
import type { Services } from '../app/services.ts';
import type { ApproverIdentity } from '../auth/identity.ts';
import { authenticateRequest, isSafeMethod } from '../auth/require-identity.ts';
import { expectedOrigin, isSameOriginRequest } from '../auth/same-origin.ts';
import { ApiError } from '../errors/api-error.ts';
import { readForm } from '../http/read-form.ts';
import type { LayoutProps } from './layout.ts';
import { loginUrlFor } from './safe-next.ts';

/**
 * Pages need a signed-in approver: a visitor without one is sent to the login form.
 * Posts must come from our own origin (Origin / Sec-Fetch-Site), checked before the
 * body is even read; the form's CSRF token is checked by `readCheckedForm`.
 */
export function requirePageApprover(services: Services): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!isSafeMethod(c.req.method) && !isSameOriginRequest((n) => c.req.header(n), expectedOrigin(services.publicOrigin, c.req.url))) {
      throw new ApiError('csrf_rejected', 'cross-site form post refused');
    }
    const result = await authenticateRequest(services, c);
    if (!result.ok) {
      if (isSafeMethod(c.req.method)) {
        // A deep link opened while signed out comes back to the same page after sign-in.
        const url = new URL(c.req.url);
        return c.redirect(loginUrlFor(`${url.pathname}${url.search}`), 303);
      }
      throw new ApiError('unauthenticated', 'sign in first');
    }
    if (result.identity.kind !== 'approver') throw new ApiError('forbidden', 'pages are for approvers');
    c.set('identity', result.identity);
    await next();
  };
}

export function pageApprover(c: Context<AppEnv>): ApproverIdentity {
  const identity = c.get('identity');
  if (identity?.kind !== 'approver') throw new ApiError('forbidden', 'pages are for approvers');
  return identity;
}

/** The synchronizer token for this browser session; bearer-token callers have none (they do not use forms). */
export function csrfTokenFor(services: Services, identity: ApproverIdentity): string | undefined {
  return identity.csrfKey === undefined ? undefined : services.sessions.csrfToken(identity.csrfKey);
}

export function layoutUser(services: Services, identity: ApproverIdentity): NonNullable<LayoutProps['user']> {
  return { id: identity.approver.id, signOutToken: identity.via === 'session' ? csrfTokenFor(services, identity) : undefined };
}

/** Reads a form post and checks its CSRF token against the session. */
export async function readCheckedForm(
  c: Context<AppEnv>,
  services: Services,
  fields: readonly string[],
): Promise<Record<string, string>> {
  const identity = pageApprover(c);
  const form = await readForm(c, ['csrf', ...fields]);
  if (identity.csrfKey === undefined || !services.sessions.checkCsrf(identity.csrfKey, form.csrf)) {
    throw new ApiError('csrf_rejected', 'missing or wrong form token');
  }
  return form;
}
