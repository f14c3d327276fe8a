import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { ResolvedTuning } from '../app/options.ts';
import { ApiError } from '../errors/api-error.ts';
import { AttemptLimiter } from './attempt-limiter.ts';

/** The server's guessing limits: one limiter per kind of key, each bounded in size. */
export interface Throttles {
  /** Failed logins per normalized approver id. */
  loginById: AttemptLimiter;
  /** Failed logins per client address. */
  loginByAddress: AttemptLimiter;
  /**
   * Invalid bearer tokens per client address AND token presented (`bearerKey`): a client
   * repeating a wrong token is throttled alone; others behind the same address go on.
   */
  bearerByToken: AttemptLimiter;
  /**
   * Invalid bearer tokens per client address, whatever the token: the backstop against
   * guessing with a new token each time. Higher than per token, since it locks everyone
   * behind the address (a reverse proxy, a NAT).
   */
  bearerByAddress: AttemptLimiter;
}

export function createThrottles(tuning: ResolvedTuning): Throttles {
  return {
    loginById: new AttemptLimiter(tuning.loginThrottle, tuning.throttleMaxKeys),
    loginByAddress: new AttemptLimiter(tuning.loginAddressThrottle, tuning.throttleMaxKeys),
    bearerByToken: new AttemptLimiter(tuning.bearerThrottle, tuning.throttleMaxKeys),
    bearerByAddress: new AttemptLimiter(tuning.bearerAddressThrottle, tuning.throttleMaxKeys),
  };
}

/**
 * The id as the throttle counts it: trimmed, NFKC, lower case, so `Fiona ` and
 * `fiona` share one budget; at most 256 characters, so a huge form field cannot make
 * a huge key. Unknown ids are counted exactly like known ones.
 */
export function loginIdKey(id: string): string {
  // Cut before normalizing too, so the work per request is bounded as well.
  return id.slice(0, 1024).trim().normalize('NFKC').toLowerCase().slice(0, 256);
}

/**
 * The per-token throttle key: the address and a 64-bit prefix of SHA-256 of the whole
 * Authorization value. Only a hash prefix is kept in memory (no token, valid or not), it
 * is computed the same for every value, and 64 bits keep distinct wrong tokens apart.
 */
export function bearerKey(address: string, authorization: string): string {
  // Bounded work per request, like loginIdKey: a huge header is cut before hashing.
  return `${address} ${createHash('sha256').update(authorization.slice(0, 8192)).digest('hex').slice(0, 16)}`;
}

/** Sets Retry-After (whole seconds, rounded up) and returns the error to answer with. */
export function tooManyAttempts(c: Context, retryAfterMs: number): ApiError {
  c.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return new ApiError('too_many_attempts', 'too many failed attempts; try again later');
}
