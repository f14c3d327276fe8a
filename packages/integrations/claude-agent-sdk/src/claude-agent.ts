import { type CountersignClaudeHooks, type CountersignClaudeOptions, guardHooks } from './hooks.ts';
import { startRelayProxy } from './relay-proxy.ts';

export interface CountersignClaudeAgentOptions extends CountersignClaudeOptions {
  /** The runtime's environment before Countersign's changes. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * Where the runtime's model is, and its key. Default: the environment's
   * `ANTHROPIC_BASE_URL` (else `https://api.anthropic.com`) and `ANTHROPIC_API_KEY` (sent
   * as `x-api-key`) or `ANTHROPIC_AUTH_TOKEN` (sent as a Bearer token).
   */
  upstream?: { baseUrl?: string | undefined; apiKey?: string | undefined; authToken?: string | undefined } | undefined;
}

/** What to spread into `query({ options })`, and what to close when the app is done with the runtime. */
export interface CountersignClaudeAgent extends CountersignClaudeHooks {
  /** The runtime's environment: `ANTHROPIC_BASE_URL` is the relay-checking proxy on loopback, `ANTHROPIC_API_KEY` good for it only. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Settings that send the runtime's model requests elsewhere than `ANTHROPIC_BASE_URL`, past the proxy: refused. */
const BYPASSES = ['CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY'];

/**
 * The hooks of `countersignHooks` plus CASA check 5: Countersign's recording proxy runs in
 * this process on loopback in front of the runtime's model, on the same port and runs, and
 * refuses a model request that relays a `tool_result` which is not the result recorded
 * for its call (a tampered session transcript, a made-up result). The runtime honours
 * `ANTHROPIC_BASE_URL` from `env`; spread both into the query:
 * `query({ prompt, options: { hooks: guard.hooks, env: guard.env } })`.
 *
 * Only MCP tools (SDK MCP servers included) run while it is on: a built-in tool's output
 * reaches the model in the runtime's own rendering, which cannot be compared with what
 * PostToolUse reports, so built-in tools are refused rather than run with their results
 * unchecked. Use `countersignHooks` alone for them (no relay check).
 */
export async function countersignClaudeAgent(options: CountersignClaudeAgentOptions): Promise<CountersignClaudeAgent> {
  const base = options.env ?? process.env;
  const bypass = BYPASSES.find((name) => truthy(base[name]));
  if (bypass !== undefined) throw new Error(`countersign: ${bypass} sends the runtime's model requests past the relay check; unset it`);
  const apiKey = options.upstream?.apiKey ?? (options.upstream?.authToken === undefined ? base.ANTHROPIC_API_KEY : undefined);
  const authToken = apiKey === undefined ? (options.upstream?.authToken ?? base.ANTHROPIC_AUTH_TOKEN) : undefined;
  const upstreamBase = (options.upstream?.baseUrl ?? base.ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com').replace(/\/+$/, '');
  const proxy = await startRelayProxy({
    port: options.port,
    principal: options.principal,
    runIdOf: (sdkSessionId) => options.runIdOf?.(sdkSessionId) ?? sdkSessionId,
    sessionIdOf: (sdkSessionId) => options.sessionId ?? sdkSessionId,
    upstream: {
      baseUrl: `${upstreamBase}/v1`,
      apiKey: apiKey ?? authToken,
      keyHeader: apiKey === undefined ? 'authorization' : 'x-api-key',
    },
  });
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  // The model's credentials stay with the proxy: the runtime (which runs tools) holds only the loopback key.
  delete env.ANTHROPIC_AUTH_TOKEN;
  env.ANTHROPIC_BASE_URL = proxy.baseUrl;
  env.ANTHROPIC_API_KEY = proxy.key;
  return { ...guardHooks(options, true), env, close: () => proxy.close() };
}

const truthy = (value: string | undefined) => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
