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

/** Where the embedded approval service keeps its ledger: the same store `countersign serve` and the MCP gateway use. */
export type ProxyStore = StoreTarget;

/** A proxy configuration file, checked, with its paths resolved against the file's folder. Secrets are named, never held. */
export interface ProxyConfig {
  upstream: {
    baseUrl: string;
    /** The environment variable holding the upstream API key (never the file, never the agent). */
    apiKeyEnv: string;
    headers?: Record<string, string> | undefined;
  };
  /** The Anthropic Messages API endpoint for `POST /v1/messages` (its key sent as `x-api-key`); unset, that path is not proxied. */
  anthropic?: { baseUrl: string; apiKeyEnv: string; headers?: Record<string, string> | undefined } | undefined;
  /** The policy file (absolute path). */
  policy: string;
  store: ProxyStore;
  /** The principal of requests that name none (`x-countersign-principal`). */
  principal?: string | undefined;
  trustOnFirstUse: boolean;
  listen: { host: string; port: number };
  maxBodyBytes?: number | undefined;
  /**
   * The optional intent stage (`semantic:`): the embedded gate's matcher and mode, and the
   * extractor the proxy runs on each conversation to propose the task with the calls.
   */
  semantic?: SemanticConfig | undefined;
}

export const DEFAULT_PROXY_STORE_PATH = DEFAULT_CONFIG_STORE_PATH;

const id = z.string().trim().min(1).max(200);

const schema = z.strictObject({
  upstream: z.strictObject({
    baseUrl: z.url({ protocol: /^https?$/ }),
    apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must name an environment variable').default('OPENAI_API_KEY'),
    headers: z.record(z.string(), z.string()).optional(),
  }),
  anthropic: z
    .strictObject({
      baseUrl: z.url({ protocol: /^https?$/ }),
      apiKeyEnv: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must name an environment variable').default('ANTHROPIC_API_KEY'),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  policy: z.string().min(1),
  store: storeConfigSchema,
  principal: id.optional(),
  trustOnFirstUse: z.boolean().default(false),
  listen: z
    .strictObject({ host: z.string().min(1).default('127.0.0.1'), port: z.number().int().min(0).max(65_535).default(8788) })
    .default({ host: '127.0.0.1', port: 8788 }),
  maxBodyBytes: z.number().int().min(1024).max(256 * 1024 * 1024).optional(),
  semantic: semanticConfigSchema.optional(),
});

export type ProxyConfigResult = { ok: true; config: ProxyConfig } | { ok: false; problems: string[] };

/** Checks a parsed configuration value; relative paths are taken from `baseDir` (the file's folder). */
export function parseProxyConfig(value: unknown, baseDir: string): ProxyConfigResult {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { ok: false, problems: describeZodIssues(parsed.error.issues) };
  const c = parsed.data;
  const at = (path: string) => (isAbsolute(path) ? path : resolve(baseDir, path));
  const store: ProxyStore = storeTargetOf(c.store, at, DEFAULT_PROXY_STORE_PATH);
  return {
    ok: true,
    config: {
      upstream: { baseUrl: c.upstream.baseUrl, apiKeyEnv: c.upstream.apiKeyEnv, headers: c.upstream.headers },
      ...(c.anthropic === undefined ? {} : { anthropic: { baseUrl: c.anthropic.baseUrl, apiKeyEnv: c.anthropic.apiKeyEnv, headers: c.anthropic.headers } }),
      policy: at(c.policy),
      store,
      principal: c.principal,
      trustOnFirstUse: c.trustOnFirstUse,
      listen: c.listen,
      maxBodyBytes: c.maxBodyBytes,
      semantic: c.semantic,
    },
  };
}

/** Reads and checks a proxy configuration file (.yaml, .yml or .json) with core's strict reader. Never throws. */
export async function loadProxyConfigFile(path: string): Promise<ProxyConfigResult> {
  const file = await readConfigFile(path, 'proxy configuration');
  if (!file.ok) return { ok: false, problems: [file.problem] };
  const parsed = parseConfigText(file.text, file.format);
  if (!parsed.ok) return { ok: false, problems: parsed.problems.map((p) => `${path}: ${p}`) };
  const checked = parseProxyConfig(parsed.value, dirname(path));
  return checked.ok ? checked : { ok: false, problems: checked.problems.map((p) => `${path}: ${p}`) };
}
