import { describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-config.ts';

const MINIMAL = { upstreams: [{ name: 'memory', command: 'node', args: ['server.js'] }], policy: 'policy.yaml', principal: 'alice' };

describe('gateway configuration: semantic section', () => {
  it('takes a matcher with its options and mode, defaults filled in', () => {
    const parsed = parseGatewayConfig({ ...MINIMAL, semantic: { matcher: 'llm', llm: { baseUrl: 'http://127.0.0.1:8080/v1', model: 'judge', apiKeyEnv: 'JUDGE_KEY' }, uncertain: 'approve' } }, '/etc');
    expect(parsed).toMatchObject({
      ok: true,
      config: { semantic: { matcher: 'llm', uncertain: 'approve', timeoutMs: 5000, cache: true, llm: { model: 'judge', apiKeyEnv: 'JUDGE_KEY', timeoutMs: 5000 } } },
    });
  });

  it('refuses an unknown matcher, a key in the file, and the section where another gate decides', () => {
    expect(parseGatewayConfig({ ...MINIMAL, semantic: { matcher: 'magic' } }, '/etc')).toMatchObject({ ok: false });
    expect(parseGatewayConfig({ ...MINIMAL, semantic: { matcher: 'llm', llm: { baseUrl: 'http://x/v1', model: 'm', apiKey: 'sk-1' } } }, '/etc')).toMatchObject({ ok: false });
    const remote = { upstreams: MINIMAL.upstreams, principal: 'alice', approvalService: { url: 'http://127.0.0.1:8787' }, semantic: { matcher: 'local' } };
    expect(parseGatewayConfig(remote, '/etc')).toMatchObject({ ok: false, problems: [expect.stringContaining('semantic')] });
    const mounted = parseGatewayConfig({ upstreams: MINIMAL.upstreams, principal: 'alice', semantic: { matcher: 'local' } }, '/etc', 'mounted');
    expect(mounted).toMatchObject({ ok: false, problems: [expect.stringContaining('semantic')] });
  });
});
