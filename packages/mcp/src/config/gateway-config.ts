import { dirname, isAbsolute, resolve } from 'node:path';
import {
  DEFAULT_CONFIG_STORE_PATH,
  describeZodIssues,
  parseConfigText,
  readConfigFile,
  type StoreTarget,
  storeConfigSchema,
  storeTargetOf,
} from '@countersign/core/config';
import { type SemanticConfig, semanticConfigSchema } from '@countersign/semantic';
import { z } from 'zod';
import { upstreamNameProblem } from '../names.ts';
import type { CallMode } from '../recorded-call.ts';
import type { UpstreamConfig } from '../upstream.ts';

/** Where the embedded approval service keeps its ledger: the same store `countersign serve` uses. */
export type GatewayStore = StoreTarget;

/** A gateway configuration file, checked and with its paths resolved against the file's folder. */
export interface GatewayConfig {
  upstreams: UpstreamConfig[];
  /**
   * The policy file (absolute path) of the embedded approval service. Required unless
   * `approvalService` names a Countersign server (whose policy then applies).
   */
  policy?: string | undefined;
  /** The embedded approval service's store (unused with `approvalService`). */
  store: GatewayStore;
  /** A Countersign server as the approval service, in place of the embedded one. */
  approvalService?: GatewayApprovalService | undefined;
  principal: string;
  agent: string;
  /** `direct` (the tools/call is the proposal) or `recorded` (checks 3 and 4 against the run's recorded model calls). */
  calls: CallMode;
  runId?: string | undefined;
  sessionId?: string | undefined;
  namespaced?: boolean | undefined;
  approvalWaitMs: number;
  /** How long a call waits once the client's user opened the approval page (URL elicitation). */
  elicitationWaitMs?: number | undefined;
  /** How often a waiting call sends `notifications/progress`. */
  progressIntervalMs?: number | undefined;
  approvalUrl?: string | undefined;
  trustOnFirstUse: boolean;
  /**
   * The operator's lock (absolute path; `countersign mcp pin` writes it): the gateway pins
   * from it at start instead of trusting first sight. Excludes `trustOnFirstUse`.
   */
  lock?: string | undefined;
  /** Strict mode: list the tool's upstream before every call (see `GatewayOptions.relistBeforeCall`). */
  relistBeforeCall: boolean;
  /** The largest message read from an upstream, in bytes (see `GatewayOptions.maxMessageBytes`). Default 10 MiB. */
  maxMessageBytes?: number | undefined;
  /** The Streamable HTTP endpoint (`countersign mcp --http`); the bearer token comes from the env var `tokenEnv`, never the file. */
  http?: GatewayHttpConfig | undefined;
  /**
   * The embedded approval service's optional intent stage (`semantic:`): the matcher, what
   * `uncertain` does, the allowlist. Calls name their task in `_meta["countersign/task"]`.
   * Not with `approvalService` (the server's gate has its own) nor when mounted by serve.
   */
  semantic?: SemanticConfig | undefined;
}

/** A remote approval service: the server's base URL, and the env var holding the gateway's agent token (never the file). */
export interface GatewayApprovalService {
  url: string;
  tokenEnv: string;
}

export interface GatewayHttpConfig {
  host: string;
  port: number;
  path: string;
  tokenEnv: string;
  allowedOrigins?: string[] | undefined;
  allowedHosts?: string[] | undefined;
}

export const DEFAULT_GATEWAY_STORE_PATH = DEFAULT_CONFIG_STORE_PATH;

const id = z.string().trim().min(1).max(200);
const stringMap = z.record(z.string(), z.string());

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must name an environment variable');

/** An upstream's environment variable: a literal, or `{ env: NAME }`, the gateway's own variable NAME (secrets stay out of the file). */
const envValue = z.union([z.string(), z.strictObject({ env: envName })]);

const stdioUpstream = z.strictObject({
  name: z.string(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), envValue).optional(),
  /** The gateway's variables passed through as they are, when set (beside the SDK's safe default set: HOME, PATH, ...). */
  passEnv: z.array(envName).optional(),
  cwd: z.string().min(1).optional(),
});
const httpUpstream = z.strictObject({
  name: z.string(),
  url: z.url({ protocol: /^https?$/ }),
  headers: stringMap.optional(),
});

const fields = z.strictObject({
  upstreams: z
    .array(z.union([stdioUpstream, httpUpstream]))
    .min(1)
    .superRefine((upstreams, ctx) => {
      const seen = new Set<string>();
      upstreams.forEach((u, i) => {
        const problem = upstreamNameProblem(u.name);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: problem });
        if (seen.has(u.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `upstream ${JSON.stringify(u.name)} is named twice` });
        seen.add(u.name);
      });
    }),
  policy: z.string().min(1).optional(),
  approvalService: z
    .strictObject({
      url: z.url({ protocol: /^https?$/ }),
      tokenEnv: envName.default('COUNTERSIGN_AGENT_TOKEN'),
    })
    .optional(),
  store: storeConfigSchema,
  principal: id,
  agent: id.default('mcp-gateway'),
  calls: z.enum(['direct', 'recorded']).default('direct'),
  runId: id.optional(),
  sessionId: id.optional(),
  namespaced: z.boolean().optional(),
  // An hour at most: a tools/call that waits longer is better answered "approval required".
  approvalWaitMs: z.number().int().min(0).max(3_600_000).default(0),
  elicitationWaitMs: z.number().int().min(0).max(3_600_000).optional(),
  progressIntervalMs: z.number().int().min(100).max(60_000).optional(),
  approvalUrl: z.url({ protocol: /^https?$/ }).optional(),
  trustOnFirstUse: z.boolean().optional(),
  lock: z.string().min(1).optional(),
  relistBeforeCall: z.boolean().default(false),
  // 1 KiB to 1 GiB: below, no tool result fits; above, one message could exhaust the gateway's memory.
  maxMessageBytes: z.number().int().min(1024).max(1024 * 1024 * 1024).optional(),
  http: z
    .strictObject({
      host: z.string().min(1).default('127.0.0.1'),
      port: z.number().int().min(0).max(65_535),
      path: z.string().regex(/^\/[A-Za-z0-9/_.-]*$/, 'must be an absolute URL path').default('/mcp'),
      tokenEnv: envName.default('COUNTERSIGN_MCP_TOKEN'),
      allowedOrigins: z.array(z.url({ protocol: /^https?$/ }).transform((u) => new URL(u).origin)).optional(),
      allowedHosts: z.array(z.string().min(1).toLowerCase()).optional(),
    })
    .optional(),
  semantic: semanticConfigSchema.optional(),
});

/**
 * Where the configuration is used: `standalone` (`countersign mcp`: its own approval
 * service, embedded or remote) or `mounted` (`countersign serve --mcp`: serve's gate,
 * policy, store and port apply, so the file must not name others).
 */
export type GatewayConfigMode = 'standalone' | 'mounted';

const MOUNTED_FORBIDDEN = ['policy', 'store', 'approvalService', 'trustOnFirstUse', 'http', 'semantic'] as const;

// A lock pins in the gateway's own store; a server's store is pinned on the server itself.
const LOCK_ELSEWHERE = "the approval service's store holds the pins: pin on it with `countersign tools pin` (a lock is only applied by a gateway with its own store)";

function schemaFor(mode: GatewayConfigMode) {
  return fields.superRefine((c, ctx) => {
    if (mode === 'mounted') {
      for (const key of MOUNTED_FORBIDDEN) {
        if (c[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: "not used when `countersign serve` mounts the gateway: serve's own settings apply" });
      }
      if (c.lock !== undefined) ctx.addIssue({ code: 'custom', path: ['lock'], message: `not used when \`countersign serve\` mounts the gateway: ${LOCK_ELSEWHERE}` });
      return;
    }
    // One approval service: the embedded one (its policy and store) or a server's (its policy, its store).
    if (c.approvalService === undefined && c.policy === undefined) {
      ctx.addIssue({ code: 'custom', path: ['policy'], message: 'a policy file is required, unless approvalService names a Countersign server' });
    }
    if (c.approvalService !== undefined) {
      for (const key of ['policy', 'store', 'trustOnFirstUse', 'semantic'] as const) {
        if (c[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: `not used with approvalService: the server's ${key === 'store' ? 'store' : key === 'policy' ? 'policy' : key === 'semantic' ? 'intent stage' : 'settings'} apply` });
      }
      if (c.lock !== undefined) ctx.addIssue({ code: 'custom', path: ['lock'], message: `not used with approvalService: ${LOCK_ELSEWHERE}` });
    }
  });
}

export type GatewayConfigResult = { ok: true; config: GatewayConfig } | { ok: false; problems: string[] };

/** Checks a parsed configuration value; relative paths are taken from `baseDir` (the file's folder). */
export function parseGatewayConfig(value: unknown, baseDir: string, mode: GatewayConfigMode = 'standalone', env: Environment = process.env): GatewayConfigResult {
  const parsed = schemaFor(mode).safeParse(value);
  if (!parsed.success) return { ok: false, problems: describeZodIssues(parsed.error.issues) };
  const c = parsed.data;
  const environments = c.upstreams.map((u, i) => ('command' in u ? upstreamEnvironment(u, i, env) : undefined));
  const missing = environments.flatMap((e) => (e?.ok === false ? e.problems : []));
  if (missing.length > 0) return { ok: false, problems: missing };
  // Operator pins and first-sight trust contradict each other: with a lock, an unlisted tool waits for review.
  if (c.lock !== undefined && c.trustOnFirstUse) return { ok: false, problems: ['lock: a lock pins tools itself; remove trustOnFirstUse (tools the lock does not list wait for review)'] };
  const at = (path: string) => (isAbsolute(path) ? path : resolve(baseDir, path));
  const store: GatewayStore = storeTargetOf(c.store, at, DEFAULT_GATEWAY_STORE_PATH);
  return {
    ok: true,
    config: {
      upstreams: c.upstreams.map((u, i) => {
        if (!('command' in u)) return u;
        const { passEnv: _passEnv, env: _env, ...rest } = u;
        const resolved = environments[i];
        return { ...rest, ...(resolved?.ok === true && resolved.env !== undefined ? { env: resolved.env } : {}), ...(u.cwd === undefined ? {} : { cwd: at(u.cwd) }) };
      }),
      policy: c.policy === undefined ? undefined : at(c.policy),
      store,
      approvalService: c.approvalService,
      principal: c.principal,
      agent: c.agent,
      calls: c.calls,
      runId: c.runId,
      sessionId: c.sessionId,
      namespaced: c.namespaced,
      approvalWaitMs: c.approvalWaitMs,
      elicitationWaitMs: c.elicitationWaitMs,
      progressIntervalMs: c.progressIntervalMs,
      // The approval pages are the service's own, unless the operator names another origin (a proxy).
      approvalUrl: c.approvalUrl ?? c.approvalService?.url,
      trustOnFirstUse: c.trustOnFirstUse ?? false,
      lock: c.lock === undefined ? undefined : at(c.lock),
      relistBeforeCall: c.relistBeforeCall,
      maxMessageBytes: c.maxMessageBytes,
      http: c.http,
      semantic: c.semantic,
    },
  };
}

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * A stdio upstream's environment: its literals, its `{ env: NAME }` references read from
 * the gateway's environment, and the `passEnv` variables that are set. A reference to a
 * variable that is not set is a configuration problem (the upstream would start without
 * its credential and fail later, less clearly).
 */
function upstreamEnvironment(
  upstream: { env?: Record<string, string | { env: string }> | undefined; passEnv?: string[] | undefined },
  index: number,
  env: Environment,
): { ok: true; env: Record<string, string> | undefined } | { ok: false; problems: string[] } {
  if (upstream.env === undefined && upstream.passEnv === undefined) return { ok: true, env: undefined };
  const resolved: Record<string, string> = {};
  for (const name of upstream.passEnv ?? []) {
    const value = env[name];
    if (value !== undefined) resolved[name] = value;
  }
  const problems: string[] = [];
  for (const [name, value] of Object.entries(upstream.env ?? {})) {
    if (typeof value === 'string') resolved[name] = value;
    else if (env[value.env] !== undefined) resolved[name] = env[value.env] as string;
    else problems.push(`upstreams.${index}.env.${name}: the environment variable ${value.env} is not set`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, env: resolved };
}

/** Reads and checks a gateway configuration file (.yaml, .yml or .json) with core's strict reader. Never throws. */
export async function loadGatewayConfigFile(path: string, mode: GatewayConfigMode = 'standalone', env: Environment = process.env): Promise<GatewayConfigResult> {
  const file = await readConfigFile(path, 'gateway configuration');
  if (!file.ok) return { ok: false, problems: [file.problem] };
  const parsed = parseConfigText(file.text, file.format);
  if (!parsed.ok) return { ok: false, problems: parsed.problems.map((p) => `${path}: ${p}`) };
  const checked = parseGatewayConfig(parsed.value, dirname(path), mode, env);
  return checked.ok ? checked : { ok: false, problems: checked.problems.map((p) => `${path}: ${p}`) };
}
