import { createHmac, randomBytes } from 'node:crypto';
import { MemorySessionRevocations, type SessionRevocationStore } from '@countersign/core/session';
import { ServerConfigError } from '../app/options.ts';
import { ApiError } from '../errors/api-error.ts';
import { secretsEqual } from './constant-time.ts';

export interface SessionClaims {
  /** Random session id; the CSRF token is derived from it. */
  sid: string;
  /** Approver id. Roles are looked up in the configuration on every request. */
  uid: string;
  /** Expiry, ms since the epoch. */
  exp: number;
}

const MIN_SECRET_BYTES = 32;
const MAX_COOKIE_LENGTH = 1024;

/**
 * Signed session cookies plus per-session CSRF tokens. Both are HMACs under one
 * secret with distinct labels, so a CSRF token can never pass as a session signature
 * or the other way round. A cookie carries its own expiry; logout before then is
 * recorded in `revocations` (the store, so it holds across restarts and replicas).
 */
export class Sessions {
  readonly #secret: Buffer;
  readonly #revocations: SessionRevocationStore;

  /** Without a store, logouts last as long as this process (fine only for an in-memory ledger). */
  constructor(secret: string | undefined, revocations: SessionRevocationStore = new MemorySessionRevocations()) {
    this.#revocations = revocations;
    if (secret === undefined) {
      this.#secret = randomBytes(32);
    } else {
      if (typeof secret !== 'string' || Buffer.byteLength(secret, 'utf8') < MIN_SECRET_BYTES) {
        throw new ServerConfigError('invalid_session_secret', `sessionSecret must be at least ${MIN_SECRET_BYTES} bytes`);
      }
      this.#secret = Buffer.from(secret, 'utf8');
    }
  }

  create(uid: string, now: number, ttlSeconds: number): { value: string; claims: SessionClaims } {
    const claims: SessionClaims = { sid: randomBytes(18).toString('base64url'), uid, exp: now + ttlSeconds * 1000 };
    const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return { value: `${payload}.${this.#mac('session', payload)}`, claims };
  }

  /**
   * The claims of a genuine, unexpired session cookie that was not logged out; otherwise
   * undefined. If the store cannot say whether it was logged out, the request fails
   * (store_unavailable): a session is never accepted on an unanswered question.
   */
  async check(value: string | undefined, now: number): Promise<SessionClaims | undefined> {
    const claims = this.open(value, now);
    if (claims === undefined) return undefined;
    let revoked: boolean;
    try {
      revoked = await this.#revocations.isRevoked(claims.sid, now);
    } catch {
      throw new ApiError('store_unavailable', 'cannot check the session right now; try again');
    }
    return revoked ? undefined : claims;
  }

  /** The claims of a genuine, unexpired session cookie, WITHOUT the logout check: use `check`. */
  open(value: string | undefined, now: number): SessionClaims | undefined {
    if (value === undefined || value.length > MAX_COOKIE_LENGTH) return undefined;
    const dot = value.indexOf('.');
    if (dot <= 0) return undefined;
    const payload = value.slice(0, dot);
    if (!secretsEqual(value.slice(dot + 1), this.#mac('session', payload))) return undefined;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isClaims(claims) || now >= claims.exp) return undefined;
    return claims;
  }

  /** Logout: the session stays refused, in every process on the store, until it would have expired. */
  async end(claims: SessionClaims, now: number): Promise<void> {
    try {
      await this.#revocations.revoke(claims.sid, claims.exp, now);
    } catch {
      throw new ApiError('store_unavailable', 'cannot sign out right now; try again');
    }
  }

  /** Synchronizer token for forms: HMAC of the session key, so it cannot be guessed cross-site. */
  csrfToken(key: string): string {
    return this.#mac('csrf', key);
  }

  checkCsrf(key: string, presented: string | undefined): boolean {
    return presented !== undefined && secretsEqual(presented, this.csrfToken(key));
  }

  #mac(label: string, value: string): string {
    return createHmac('sha256', this.#secret).update(`${label}\0${value}`, 'utf8').digest('base64url');
  }
}

function isClaims(value: unknown): value is SessionClaims {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.sid === 'string' && typeof v.uid === 'string' && typeof v.exp === 'number';
}
