import type { IntentConfig } from '@countersign/core/gate';
import { z } from 'zod';
import { compileAllowlist } from '../allowlist/allowlist.ts';
import { guardMatcher } from '../cache/guarded-matcher.ts';
import { createTurnCache } from '../cache/turn-cache.ts';
import { createLlmExtractor } from '../llm/llm-extractor.ts';
import { createLlmMatcher } from '../llm/llm-matcher.ts';
import type { TaskExtractor, TaskToolMatcher } from '../matcher/types.ts';

const envName = z.string().regex(/^[A-Z_][A-Z0-9_]*$/, 'must name an environment variable');

/** An OpenAI-compatible endpoint in a config file; the API key comes from the env var `apiKeyEnv`, never the file. */
const llmEndpoint = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/ }),
  model: z.string().min(1).max(200),
  apiKeyEnv: envName.optional(),
  timeoutMs: z.number().int().min(1).max(120_000).default(5000),
  responseFormat: z.enum(['json_schema', 'json_object', 'none']).default('json_schema'),
  minConfidence: z.number().min(0).max(1).optional(),
});

/**
 * The `semantic:` section of a gateway or proxy configuration: which matcher (`local`,
 * no network; or `llm`, with its endpoint), what `uncertain` does, the operator's
 * allowlist (globs, see allowlist.ts) and, for the proxy, which extractor finds the task.
 */
export const semanticConfigSchema = z.strictObject({
  matcher: z.enum(['local', 'llm']),
  llm: llmEndpoint.optional(),
  extractor: z.enum(['local', 'llm']).optional(),
  uncertain: z.enum(['deny', 'approve']).default('deny'),
  /** The gate's budget for one match; past it the answer is `uncertain`. */
  timeoutMs: z.number().int().min(1).max(120_000).default(5000),
  allowlist: z.array(z.strictObject({ task: z.string().min(1).max(1000), tool: z.string().min(1).max(1000) })).max(10_000).default([]),
  /** Per-turn cache of verdicts by (task digest, tool-definition digest). Default on. */
  cache: z.boolean().default(true),
}).superRefine((c, ctx) => {
  if ((c.matcher === 'llm' || c.extractor === 'llm') && c.llm === undefined) {
    ctx.addIssue({ code: 'custom', path: ['llm'], message: 'the llm matcher or extractor needs an llm endpoint (baseUrl, model)' });
  }
});

export type SemanticConfig = z.output<typeof semanticConfigSchema>;

export class SemanticConfigError extends Error {
  readonly code = 'invalid_semantic_config' as const;
}

/** Factories for what is built by name; the defaults come from this package. Injected in tests. */
export interface SemanticFactories {
  localMatcher?: (() => TaskToolMatcher) | undefined;
  localExtractor?: (() => TaskExtractor) | undefined;
}

export interface BuiltSemantic {
  /** For `GateConfig.intent` (add `resolveTask` when task summaries are stored). */
  intent: IntentConfig;
  /** The extractor the proxy runs on the conversation it sees, when configured. */
  extractor: TaskExtractor | undefined;
}

/**
 * Builds the intent stage from a `semantic:` section: the matcher by name behind the
 * allowlist and the per-turn cache, and the extractor. A missing API key env var or an
 * unavailable local matcher is a `SemanticConfigError` (at start, not at the first call).
 */
export async function buildSemantic(config: SemanticConfig, env: Readonly<Record<string, string | undefined>>, factories: SemanticFactories = {}): Promise<BuiltSemantic> {
  const endpoint = () => {
    const llm = config.llm!;
    const apiKey = llm.apiKeyEnv === undefined ? undefined : env[llm.apiKeyEnv];
    if (llm.apiKeyEnv !== undefined && (apiKey === undefined || apiKey === '')) throw new SemanticConfigError(`semantic.llm.apiKeyEnv: ${llm.apiKeyEnv} is not set`);
    return { baseUrl: llm.baseUrl, model: llm.model, apiKey, timeoutMs: llm.timeoutMs, responseFormat: llm.responseFormat, minConfidence: llm.minConfidence };
  };
  const base = config.matcher === 'llm' ? createLlmMatcher(endpoint()) : await byName(factories.localMatcher, 'createLocalMatcher', 'local matcher');
  const matcher = guardMatcher(base, { allowlist: compileAllowlist(config.allowlist), cache: config.cache ? createTurnCache() : undefined });
  const extractor =
    config.extractor === undefined
      ? undefined
      : config.extractor === 'llm'
        ? createLlmExtractor(endpoint())
        : await byName(factories.localExtractor, 'createLocalExtractor', 'local extractor');
  return { intent: { matcher, uncertain: config.uncertain, timeoutMs: config.timeoutMs }, extractor };
}

/** The injected factory, else this package's own export of that name (the local matcher and extractor live beside these). */
async function byName<T>(injected: (() => T) | undefined, exportName: string, what: string): Promise<T> {
  if (injected !== undefined) return injected();
  const own = (await import('../index.ts')) as Record<string, unknown>;
  const factory = own[exportName];
  if (typeof factory !== 'function') throw new SemanticConfigError(`the ${what} is not available in this build of @countersign/semantic`);
  return (factory as () => T)();
}
