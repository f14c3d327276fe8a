import type { AuthConfig } from '../app/options.ts';
import { digestSecret, findSecret, secretsEqual } from './constant-time.ts';
import type { ApproverIdentity, Identity } from './identity.ts';
import type { Sessions } from './sessions.ts';

export type AuthResult = { ok: true; identity: Identity } | { ok: false; reason: 'missing' | 'invalid' };

/** What authentication reads from a request. */
export interface Credentials {
  header(name: string): string | undefined;
  /** Read only when there is no bearer header: agent requests never parse cookies. */
  sessionCookie(): string | undefined;
}

const MAX_PROXY_USER_LENGTH = 256;
// Compared against when a login names an unknown user, so timing does not reveal which users exist.
const NO_PASSWORD = '\0countersign:no-password';
const BEARER = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i;
const INVALID: AuthResult = Object.freeze({ ok: false, reason: 'invalid' });

/**
 * Establishes who is calling, in this order: an `Authorization: Bearer` token
 * (agent or approver), trusted reverse-proxy headers, the login session cookie.
 * A bearer header that does not match is a failure, never a fall-through to the
 * cookie, so a bad token cannot ride on a browser session.
 */
export class Authenticator {
  readonly #config: AuthConfig;
  readonly #sessions: Sessions;
  readonly #tokenDigests: Buffer[];
  readonly #tokenOwners: Identity[];

  constructor(config: AuthConfig, sessions: Sessions) {
    this.#config = config;
    this.#sessions = sessions;
    this.#tokenDigests = [];
    this.#tokenOwners = [];
    for (const agent of config.agents) {
      this.#tokenDigests.push(digestSecret(agent.token));
      this.#tokenOwners.push({
        kind: 'agent',
        name: agent.name,
        ...(agent.principals === undefined ? {} : { principals: [...agent.principals] }),
      });
    }
    for (const approver of config.approvers) {
      if (approver.token === undefined) continue;
      this.#tokenDigests.push(digestSecret(approver.token));
      this.#tokenOwners.push({ kind: 'approver', approver: approverOf(approver), via: 'bearer' });
    }
  }

  async authenticate(credentials: Credentials, now: number): Promise<AuthResult> {
    const authorization = credentials.header('authorization');
    if (authorization !== undefined) return this.authenticateBearer(authorization);
    const proxied = this.#fromProxy(credentials);
    if (proxied !== undefined) return { ok: true, identity: proxied };
    const cookie = credentials.sessionCookie();
    const claims = await this.#sessions.check(cookie, now);
    if (claims !== undefined) {
      const approver = this.#approver(claims.uid);
      if (approver !== undefined) {
        return { ok: true, identity: { kind: 'approver', approver, via: 'session', csrfKey: `session:${claims.sid}` } };
      }
    }
    return { ok: false, reason: cookie === undefined ? 'missing' : 'invalid' };
  }

  /**
   * The owner of an `Authorization` header's bearer token, synchronously (agent routes
   * take this path: no promise, no cookie parsing). Anything but one well-formed bearer
   * token that matches a configured one is `invalid`; the match is constant-time over
   * every configured token's digest (findSecret). Tokens are fixed at construction, so
   * there is nothing to revoke or expire here.
   */
  authenticateBearer(authorization: string): AuthResult {
    const match = BEARER.exec(authorization);
    if (match === null) return INVALID;
    const owner = this.#tokenOwners[findSecret(match[1]!, this.#tokenDigests)];
    return owner === undefined ? INVALID : { ok: true, identity: owner };
  }

  /** The approver whose password this is, checked in constant time; undefined otherwise. */
  login(id: string, password: string): ApproverIdentity['approver'] | undefined {
    const entry = this.#config.approvers.find((a) => a.id === id);
    // Unknown users and users without a password still cost one comparison.
    const matches = secretsEqual(password, entry?.password ?? NO_PASSWORD);
    return matches && entry?.password !== undefined ? approverOf(entry) : undefined;
  }

  #approver(id: string): ApproverIdentity['approver'] | undefined {
    const entry = this.#config.approvers.find((a) => a.id === id);
    return entry === undefined ? undefined : approverOf(entry);
  }

  /**
   * Identity headers count only when the proxy proves itself with the shared secret
   * (when one is configured); otherwise they are ignored, as if absent.
   */
  #fromProxy(credentials: Credentials): ApproverIdentity | undefined {
    const proxy = this.#config.trustedProxy;
    if (proxy === undefined) return undefined;
    const user = credentials.header(proxy.userHeader)?.trim();
    if (user === undefined || user.length === 0 || user.length > MAX_PROXY_USER_LENGTH) return undefined;
    if (proxy.sharedSecret !== undefined && proxy.sharedSecretHeader !== undefined) {
      const presented = credentials.header(proxy.sharedSecretHeader);
      if (presented === undefined || !secretsEqual(presented, proxy.sharedSecret)) return undefined;
    }
    const entry = this.#approver(user);
    const rolesHeader = proxy.rolesHeader === undefined ? undefined : credentials.header(proxy.rolesHeader);
    const roles =
      rolesHeader !== undefined
        ? rolesHeader
            .split(',')
            .map((r) => r.trim())
            .filter((r) => r.length > 0)
        : (entry?.roles ?? []);
    // Which principals the user is comes from this file only: no header can un-say it.
    const principals = entry?.principals === undefined ? {} : { principals: entry.principals };
    return { kind: 'approver', approver: { id: user, roles, ...principals }, via: 'proxy', csrfKey: `proxy:${user}` };
  }
}

/** The approver an auth entry describes: id, roles and, when listed, the principals they are. */
function approverOf(entry: AuthConfig['approvers'][number]): ApproverIdentity['approver'] {
  return {
    id: entry.id,
    roles: [...entry.roles],
    ...(entry.principals === undefined ? {} : { principals: [...entry.principals] }),
  };
}
