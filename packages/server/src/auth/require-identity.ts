import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app/env.ts';
import type { Services } from '../app/services.ts';
import { ApiError } from '../errors/api-error.ts';
import type { AuthResult } from './authenticator.ts';
import { clientAddress } from './client-address.ts';
import { expectedOrigin, isSameOriginRequest } from './same-origin.ts';
import { readSessionCookie } from './session-cookie.ts';
import { bearerKey, tooManyAttempts } from './throttles.ts';

/**
 * Who is calling. Invalid bearer tokens are counted twice: per address and token
 * presented (a client repeating a wrong token is refused (429) alone, so one broken
 * client behind a shared address does not lock out the others) and per address (a
 * higher limit against guessing with a new token each time, which does lock the
 * address). A locked key is refused before any token is compared, so the refusal says
 * nothing about the token; sessions and proxy logins from it are unaffected.
 *
 * A bearer request is answered synchronously (no promise): it is every agent request,
 * and nothing about a bearer token needs I/O. Only sessions (cookie) can need to wait.
 */
export function authenticateRequest(services: Services, c: Parameters<MiddlewareHandler<AppEnv>>[0]): AuthResult | Promise<AuthResult> {
  const now = services.gate.now();
  const authorization = c.req.header('authorization');
  if (authorization === undefined) {
    return services.authenticator.authenticate(
      { header: (name) => c.req.header(name), sessionCookie: () => readSessionCookie(c, services.publicOrigin) },
      now,
    );
  }
  const address = clientAddress(c);
  const { bearerByToken, bearerByAddress } = services.throttles;
  const tokenKey = address === undefined ? undefined : bearerKey(address, authorization);
  if (address !== undefined && tokenKey !== undefined) {
    const retryAfterMs = Math.max(bearerByAddress.retryAfterMs(address, now), bearerByToken.retryAfterMs(tokenKey, now));
    if (retryAfterMs > 0) {
      services.countAuthFailure('throttled');
      throw tooManyAttempts(c, retryAfterMs);
    }
  }
  const result = services.authenticator.authenticateBearer(authorization);
  // A valid token does not reset the count: one leaked token must not buy unlimited guesses at the others.
  if (!result.ok) services.countAuthFailure('bearer');
  if (!result.ok && address !== undefined && tokenKey !== undefined) {
    bearerByToken.recordFailure(tokenKey, now);
    bearerByAddress.recordFailure(address, now);
  }
  return result;
}

/**
 * The 401 for a failed authentication. A caller that sent no credentials is told they are
 * required; one whose bearer token (or session cookie) did not match is told that, so a typo in a
 * token is not mistaken for a missing header. Every wrong token gets the same words: nothing
 * says whether it was malformed, unknown, or close to a real one.
 */
function unauthenticated(c: Parameters<MiddlewareHandler<AppEnv>>[0], result: { reason: 'missing' | 'invalid' }): ApiError {
  c.header('WWW-Authenticate', 'Bearer');
  if (result.reason === 'missing') return new ApiError('unauthenticated', 'authentication required');
  if (c.req.header('authorization') === undefined) return new ApiError('unauthenticated', 'session expired or invalid: sign in again');
  return new ApiError('unauthenticated', 'invalid token');
}

/** Agent runtimes only (service bearer tokens). People cannot call agent routes. */
export function requireAgent(services: Services): MiddlewareHandler<AppEnv> {
  // Not async: a bearer request (every agent's) goes on to the route without an extra promise hop.
  return (c, next) => {
    const result = authenticateRequest(services, c);
    if (result instanceof Promise) return result.then((settled) => admitAgent(c, settled, next));
    return admitAgent(c, result, next);
  };
}

function admitAgent(c: Parameters<MiddlewareHandler<AppEnv>>[0], result: AuthResult, next: () => Promise<void>): Promise<void> {
  if (!result.ok) throw unauthenticated(c, result);
  if (result.identity.kind !== 'agent') throw new ApiError('forbidden', 'this route is for agent runtimes');
  c.set('identity', result.identity);
  return next();
}

/**
 * Approvers only. A browser session (cookie or proxy login) on a state-changing
 * request must also come from our own origin: cookies ride along on cross-site
 * requests, bearer tokens do not.
 */
export function requireApprover(services: Services): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const result = await authenticateRequest(services, c);
    if (!result.ok) throw unauthenticated(c, result);
    const identity = result.identity;
    if (identity.kind !== 'approver') throw new ApiError('forbidden', 'this route is for approvers');
    if (identity.via !== 'bearer' && !isSafeMethod(c.req.method)) {
      if (!isSameOriginRequest((name) => c.req.header(name), expectedOrigin(services.publicOrigin, c.req.url))) {
        throw new ApiError('csrf_rejected', 'cross-site request refused');
      }
    }
    c.set('identity', identity);
    await next();
  };
}

export function isSafeMethod(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}
