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
  /** Invalid bearer tokens per client address. */
  bearerByAddress: AttemptLimiter;
}

export function createThrottles(tuning: ResolvedTuning): Throttles {
  return {
    loginById: new AttemptLimiter(tuning.loginThrottle, tuning.throttleMaxKeys),
    loginByAddress: new AttemptLimiter(tuning.loginAddressThrottle, tuning.throttleMaxKeys),
    bearerByAddress: new AttemptLimiter(tuning.bearerThrottle, tuning.throttleMaxKeys),
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

/** Sets Retry-After (whole seconds, rounded up) and returns the error to answer with. */
export function tooManyAttempts(c: Context, retryAfterMs: number): ApiError {
  c.header('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
  return new ApiError('too_many_attempts', 'too many failed attempts; try again later');
}
