import type { Gate } from '@countersign/core/gate';
import type { SessionRevocationStore } from '@countersign/core/session';
import type { Logger } from 'pino';
import type { ThrottleRule } from '../auth/attempt-limiter.ts';
import type { PasskeyOptions } from '../passkey/passkey-services.ts';
import type { ServerMetrics } from '../ops/metrics.ts';

export interface AuthConfig {
  /**
   * Agent runtimes: service-to-service bearer tokens. Each agent sees only the runs it
   * started. `principals` (exact names or `*` patterns) limits whom it may act for;
   * absent, any principal.
   */
  agents: Array<{ name: string; token: string; principals?: string[] | undefined }>;
  /**
   * People who approve: id, roles, and a password for the login form (and/or a bearer token for the API).
   * `principals`: the principals (end users agents act for) this approver also is; a call acting for
   * one of them (or for the approver's own id) is never theirs to approve unless the rule says principalSelf.
   */
  approvers: Array<{ id: string; roles: string[]; principals?: string[]; password?: string; token?: string }>;
  /** Trust identity headers set by an authenticating reverse proxy (optional). */
  trustedProxy?: { userHeader: string; rolesHeader?: string; sharedSecretHeader?: string; sharedSecret?: string } | undefined;
  /** Secret for signing session cookies (≥ 32 bytes); generated per process when absent (sessions then end on restart). */
  sessionSecret?: string | undefined;
}

export interface WebhookOptions {
  url: string;
  secret: string;
  /** Attempts per event, including the first. Default 5. */
  maxAttempts?: number | undefined;
  /** Delay before the first retry; doubles after each failure. Default 500 ms. */
  baseDelayMs?: number | undefined;
  /** Per-attempt timeout. Default 5000 ms. */
  timeoutMs?: number | undefined;
  /** `slack`: post a Slack incoming-webhook message (Block Kit, with a link button) instead of Countersign's JSON. Default `countersign`. */
  format?: 'countersign' | 'slack' | undefined;
  /** Include a display-safe summary of the top-level arguments. Default false: the arguments' digest only (the body leaves the trust boundary). */
  argumentSummary?: boolean | undefined;
  /** How often requests opened here are checked for expiry (`request.expired`). Default 15000. */
  expiryCheckMs?: number | undefined;
}

/**
 * One throttle: `maxFailures` failures within `windowMs` lock the key for `lockoutMs`,
 * doubling with each further lockout up to `maxLockoutMs`. A key is forgiven after a
 * quiet `windowMs`. Omitted fields keep their defaults.
 */
export interface ThrottleTuning {
  maxFailures?: number | undefined;
  windowMs?: number | undefined;
  lockoutMs?: number | undefined;
  maxLockoutMs?: number | undefined;
}

/**
 * Timing knobs for waiting clients and limits on guessing. The defaults suit
 * production; tests shorten them. The throttles live in memory: each replica
 * counts failures on its own.
 */
export interface ServerTuning {
  /** How often long-polls and event streams re-read the ledger (decisions made by other replicas). Default 1000. */
  pollIntervalMs?: number | undefined;
  /** Comment line sent on idle event streams so proxies keep them open. Default 15000. */
  heartbeatMs?: number | undefined;
  /** Upper bound for `?wait=` on request status. Default 30. */
  maxWaitSeconds?: number | undefined;
  /** How long /readyz waits for the store before answering 503 store_timeout. Default 2000. */
  readinessTimeoutMs?: number | undefined;
  /** Lifetime of a login session. Default 8 hours. */
  sessionTtlSeconds?: number | undefined;
  /**
   * Audit views reuse a full chain verification for this long (concurrent views share
   * one), so viewing cannot force a linear-time check per request. Default 10000.
   */
  chainStatusMaxAgeMs?: number | undefined;
  /** Failed logins per approver id as typed (known or not). Default 5 in 15 min → 1 min lockout, doubling, max 15 min. */
  loginThrottle?: ThrottleTuning | undefined;
  /**
   * Failed logins per client address (IPv6: per /64). Higher than per id because people
   * behind one NAT or proxy share an address. Default 20 in 15 min → 1 min, doubling, max 15 min.
   */
  loginAddressThrottle?: ThrottleTuning | undefined;
  /**
   * Invalid bearer tokens per client address and token presented: a client that keeps
   * sending one wrong token is locked alone. Default 20 in 15 min → 1 min, doubling, max 15 min.
   */
  bearerThrottle?: ThrottleTuning | undefined;
  /**
   * Invalid bearer tokens per client address, any token: the limit on guessing with a new
   * token each time. It locks everyone behind the address, so it is higher. Default 100 in 15 min → 1 min, doubling, max 15 min.
   */
  bearerAddressThrottle?: ThrottleTuning | undefined;
  /** Keys each throttle tracks at most; the least recently failing is forgotten first. Default 10000. */
  throttleMaxKeys?: number | undefined;
}

export interface ServerOptions {
  gate: Gate;
  auth: AuthConfig;
  /** Outgoing signed webhooks (request created, decided, executed, completed, expired); one or several, each with its format. */
  webhook?: WebhookOptions | readonly WebhookOptions[] | undefined;
  /**
   * Origin for links in webhooks when `publicOrigin` is not set (e.g. the listen
   * address, known once listening). Without either, links are null.
   */
  linkOrigin?: (() => string | undefined) | undefined;
  bodyLimitBytes?: number | undefined; // default 256 KiB
  /** Absolute origin the browser uses, e.g. http://127.0.0.1:8787; for CSRF origin checks. */
  publicOrigin?: string | undefined;
  tuning?: ServerTuning | undefined;
  /**
   * Where logouts are recorded: pass the store's (`store.sessions`) so a logged-out cookie
   * stays refused after a restart and on every replica. Default: this process's memory.
   */
  sessionRevocations?: SessionRevocationStore | undefined;
  /** An MCP endpoint served on the same port (the gateway `countersign serve --mcp` mounts). */
  mcp?: McpMount | undefined;
  /**
   * Passkey-signed approvals: where approvers' passkeys live (pass the store's
   * `store.passkeys`) and, optionally, the origin they are scoped to. Without it no
   * passkey can be registered, and requests under a passkey rule cannot be decided.
   */
  passkeys?: PasskeyOptions | undefined;
  /** Structured logs (pino): one line per HTTP request and per lifecycle event. Default: none. */
  logger?: Logger | undefined;
  /**
   * Prometheus metrics at GET /metrics. Default: on, unauthenticated (counts and
   * latencies only, no ids or names). `token`: the scrape must send it as a bearer
   * token. `collector`: a ServerMetrics also fed by a `timedLedger` (store latency).
   * `false`: no /metrics route.
   */
  metrics?: { collector?: ServerMetrics | undefined; token?: string | undefined } | false | undefined;
}

/**
 * An MCP Streamable HTTP endpoint mounted at `path`: only the agent named `agent` may use
 * it (its bearer token, checked like every agent route); `handle` gets the request after that.
 */
export interface McpMount {
  path: string;
  agent: string;
  handle(request: Request): Promise<Response>;
}

/** Why a mount path is refused, or undefined: it must not shadow the API, the pages or the assets. */
export function mcpPathProblem(path: string): string | undefined {
  if (!/^\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/.test(path)) return 'must be an absolute URL path such as /mcp';
  const segments = path.split('/').slice(1);
  if (segments.some((segment) => segment === '.' || segment === '..')) return 'must not contain . or .. segments';
  const first = segments[0] ?? '';
  if (['api', 'requests', 'audit', 'assets', 'login', 'logout', 'session', 'passkeys', 'healthz', 'readyz', 'metrics'].includes(first)) return `${path} would shadow the service's own routes`;
  return undefined;
}

export const DEFAULT_BODY_LIMIT_BYTES = 256 * 1024;

export type ServerConfigErrorCode =
  | 'invalid_auth_config'
  | 'invalid_session_secret'
  | 'invalid_public_origin'
  | 'invalid_passkey_origin'
  | 'invalid_webhook'
  | 'invalid_tuning'
  | 'invalid_mcp_mount';

/** A configuration the server refuses to start with (a programming or deployment error). */
export class ServerConfigError extends Error {
  readonly code: ServerConfigErrorCode;

  constructor(code: ServerConfigErrorCode, message: string) {
    super(message);
    this.name = 'ServerConfigError';
    this.code = code;
  }
}

export interface ResolvedTuning {
  pollIntervalMs: number;
  heartbeatMs: number;
  maxWaitSeconds: number;
  sessionTtlSeconds: number;
  readinessTimeoutMs: number;
  chainStatusMaxAgeMs: number;
  loginThrottle: ThrottleRule;
  loginAddressThrottle: ThrottleRule;
  bearerThrottle: ThrottleRule;
  bearerAddressThrottle: ThrottleRule;
  throttleMaxKeys: number;
}

const MINUTE_MS = 60_000;

export function resolveTuning(tuning: ServerTuning | undefined): ResolvedTuning {
  return {
    pollIntervalMs: tuning?.pollIntervalMs ?? 1000,
    heartbeatMs: tuning?.heartbeatMs ?? 15_000,
    maxWaitSeconds: tuning?.maxWaitSeconds ?? 30,
    sessionTtlSeconds: tuning?.sessionTtlSeconds ?? 8 * 3600,
    readinessTimeoutMs: positiveInteger('readinessTimeoutMs', tuning?.readinessTimeoutMs ?? 2000),
    chainStatusMaxAgeMs: tuning?.chainStatusMaxAgeMs ?? 10_000,
    loginThrottle: resolveThrottle('loginThrottle', tuning?.loginThrottle, 5),
    loginAddressThrottle: resolveThrottle('loginAddressThrottle', tuning?.loginAddressThrottle, 20),
    bearerThrottle: resolveThrottle('bearerThrottle', tuning?.bearerThrottle, 20),
    bearerAddressThrottle: resolveThrottle('bearerAddressThrottle', tuning?.bearerAddressThrottle, 100),
    throttleMaxKeys: positiveInteger('throttleMaxKeys', tuning?.throttleMaxKeys ?? 10_000),
  };
}

function resolveThrottle(name: string, tuning: ThrottleTuning | undefined, maxFailures: number): ThrottleRule {
  const rule = {
    maxFailures: positiveInteger(`${name}.maxFailures`, tuning?.maxFailures ?? maxFailures),
    windowMs: positiveInteger(`${name}.windowMs`, tuning?.windowMs ?? 15 * MINUTE_MS),
    lockoutMs: positiveInteger(`${name}.lockoutMs`, tuning?.lockoutMs ?? MINUTE_MS),
    maxLockoutMs: positiveInteger(`${name}.maxLockoutMs`, tuning?.maxLockoutMs ?? 15 * MINUTE_MS),
  };
  if (rule.maxLockoutMs < rule.lockoutMs) {
    throw new ServerConfigError('invalid_tuning', `${name}.maxLockoutMs must not be less than lockoutMs`);
  }
  return rule;
}

// A zero or NaN limit would silently disable a throttle (or lock everyone out); refuse it at startup.
function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new ServerConfigError('invalid_tuning', `${name} must be a positive integer`);
  return value;
}

/** Normalizes `publicOrigin` to `scheme://host[:port]`, or throws. */
export function resolvePublicOrigin(publicOrigin: string | undefined): string | undefined {
  if (publicOrigin === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(publicOrigin);
  } catch {
    throw new ServerConfigError('invalid_public_origin', 'publicOrigin must be an absolute http(s) origin');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ServerConfigError('invalid_public_origin', 'publicOrigin must use http or https');
  }
  return url.origin;
}

/**
 * Rejects credentials that would make authentication ambiguous: empty tokens, one
 * token used by two identities (an agent token that is also an approver token would
 * let the agent decide), duplicate ids.
 */
export function validateAuthConfig(auth: AuthConfig): void {
  const tokens = new Set<string>();
  const claim = (token: string, owner: string) => {
    if (typeof token !== 'string' || token.length === 0) {
      throw new ServerConfigError('invalid_auth_config', `${owner}: token must be a non-empty string`);
    }
    if (tokens.has(token)) throw new ServerConfigError('invalid_auth_config', `${owner}: token is used by another identity`);
    tokens.add(token);
  };
  const names = new Set<string>();
  for (const agent of auth.agents) {
    if (typeof agent.name !== 'string' || agent.name.length === 0) {
      throw new ServerConfigError('invalid_auth_config', 'agent names must be non-empty strings');
    }
    if (names.has(`agent:${agent.name}`)) throw new ServerConfigError('invalid_auth_config', `duplicate agent ${agent.name}`);
    names.add(`agent:${agent.name}`);
    claim(agent.token, `agent ${agent.name}`);
    if (agent.principals !== undefined && (!Array.isArray(agent.principals) || agent.principals.some((p) => typeof p !== 'string' || p.length === 0))) {
      throw new ServerConfigError('invalid_auth_config', `agent ${agent.name}: principals must be non-empty strings`);
    }
  }
  for (const approver of auth.approvers) {
    if (typeof approver.id !== 'string' || approver.id.length === 0) {
      throw new ServerConfigError('invalid_auth_config', 'approver ids must be non-empty strings');
    }
    if (names.has(`approver:${approver.id}`)) {
      throw new ServerConfigError('invalid_auth_config', `duplicate approver ${approver.id}`);
    }
    names.add(`approver:${approver.id}`);
    if (!Array.isArray(approver.roles) || approver.roles.some((r) => typeof r !== 'string')) {
      throw new ServerConfigError('invalid_auth_config', `approver ${approver.id}: roles must be strings`);
    }
    if (approver.principals !== undefined && (!Array.isArray(approver.principals) || approver.principals.some((p) => typeof p !== 'string' || p.length === 0))) {
      throw new ServerConfigError('invalid_auth_config', `approver ${approver.id}: principals must be non-empty strings`);
    }
    if (approver.token !== undefined) claim(approver.token, `approver ${approver.id}`);
    if (approver.password !== undefined && (typeof approver.password !== 'string' || approver.password.length === 0)) {
      throw new ServerConfigError('invalid_auth_config', `approver ${approver.id}: password must be non-empty`);
    }
  }
  const proxy = auth.trustedProxy;
  if (proxy !== undefined) {
    if (typeof proxy.userHeader !== 'string' || proxy.userHeader.length === 0) {
      throw new ServerConfigError('invalid_auth_config', 'trustedProxy.userHeader is required');
    }
    if ((proxy.sharedSecret === undefined) !== (proxy.sharedSecretHeader === undefined)) {
      throw new ServerConfigError('invalid_auth_config', 'trustedProxy needs both sharedSecretHeader and sharedSecret, or neither');
    }
    if (proxy.sharedSecret !== undefined && proxy.sharedSecret.length === 0) {
      throw new ServerConfigError('invalid_auth_config', 'trustedProxy.sharedSecret must not be empty');
    }
  }
}
