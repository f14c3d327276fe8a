import { describe, expect, it } from 'vitest';
import { parseProxyConfig } from './proxy-config.ts';

describe('proxy configuration', () => {
  it('resolves paths from the file, defaults the listener and the key variable', () => {
    const parsed = parseProxyConfig({ upstream: { baseUrl: 'https://api.openai.com/v1' }, policy: 'policy.yaml' }, '/etc/cs');
    expect(parsed).toEqual({
      ok: true,
      config: {
        upstream: { baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', headers: undefined },
        policy: '/etc/cs/policy.yaml',
        store: { kind: 'sqlite', path: '/etc/cs/.countersign/countersign.sqlite' },
        principal: undefined,
        trustOnFirstUse: false,
        listen: { host: '127.0.0.1', port: 8788 },
        maxBodyBytes: undefined,
      },
    });
  });

  it('an optional anthropic upstream for /v1/messages, its key variable defaulting to ANTHROPIC_API_KEY', () => {
    const parsed = parseProxyConfig({ upstream: { baseUrl: 'https://api.openai.com/v1' }, anthropic: { baseUrl: 'https://api.anthropic.com/v1' }, policy: 'p.yaml' }, '/');
    expect(parsed.ok && parsed.config.anthropic).toEqual({ baseUrl: 'https://api.anthropic.com/v1', apiKeyEnv: 'ANTHROPIC_API_KEY', headers: undefined });
    expect(parseProxyConfig({ upstream: { baseUrl: 'https://a/v1' }, anthropic: { baseUrl: 'https://b/v1', apiKey: 'sk-ant' }, policy: 'p.yaml' }, '/').ok).toBe(false);
  });

  it('refuses a key in the file, unknown fields and a non-http upstream, listing each problem', () => {
    const parsed = parseProxyConfig({ upstream: { baseUrl: 'file:///etc/passwd', apiKey: 'sk-live' }, policy: 'p.yaml', extra: 1 }, '/');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems.join('\n')).toMatch(/baseUrl[\s\S]*apiKey[\s\S]*extra|baseUrl[\s\S]*extra[\s\S]*apiKey|apiKey/);
  });
});
