import { describe, expect, it } from 'vitest';
import type { TaskToolMatcher } from '../matcher/types.ts';
import { buildSemantic, SemanticConfigError, semanticConfigSchema } from './semantic-config.ts';

const local: TaskToolMatcher = { id: 'local-stub', match: async () => ({ decision: 'mismatch', score: 0.1, matcher: 'local-stub' }) };

describe('semantic: config section', () => {
  it('defaults: uncertain deny, 5 s, cache on, no allowlist; llm needs an endpoint', () => {
    expect(semanticConfigSchema.parse({ matcher: 'local' })).toEqual({ matcher: 'local', uncertain: 'deny', timeoutMs: 5000, allowlist: [], cache: true });
    expect(semanticConfigSchema.safeParse({ matcher: 'llm' }).success).toBe(false);
    expect(semanticConfigSchema.safeParse({ matcher: 'local', extractor: 'llm' }).success).toBe(false);
    expect(semanticConfigSchema.safeParse({ matcher: 'local', apiKey: 'sk-in-the-file' }).success).toBe(false);
    expect(semanticConfigSchema.safeParse({ matcher: 'llm', llm: { baseUrl: 'ftp://x', model: 'm' } }).success).toBe(false);
  });

  it('builds the local matcher by name (injected here) behind the allowlist', async () => {
    const config = semanticConfigSchema.parse({ matcher: 'local', uncertain: 'approve', allowlist: [{ task: 'read ci *', tool: 'gh__*' }] });
    const built = await buildSemantic(config, {}, { localMatcher: () => local });
    expect(built.intent).toMatchObject({ uncertain: 'approve', timeoutMs: 5000 });
    const t = { name: 'gh__runs' };
    expect(await built.intent.matcher.match({ task: 'Read CI results', tool: t, catalogue: [t] })).toMatchObject({ decision: 'match', matcher: 'allowlist' });
    expect(await built.intent.matcher.match({ task: 'export users', tool: t, catalogue: [t] })).toMatchObject({ decision: 'mismatch' });
  });

  it('the API key comes from the named env var; a missing one is a config error at start', async () => {
    const config = semanticConfigSchema.parse({ matcher: 'llm', extractor: 'llm', llm: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKeyEnv: 'JUDGE_KEY' } });
    await expect(buildSemantic(config, {})).rejects.toThrow(SemanticConfigError);
    const built = await buildSemantic(config, { JUDGE_KEY: 'sk' });
    expect(built.intent.matcher.id).toBe('llm:m');
    expect(built.extractor?.id).toBe('llm:m');
  });
});
