import { makeGateFixture } from '@countersign/core/testing';
import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { TEST_AUTH } from '../testing/server-fixture.ts';
import { type AuthConfig, createApp } from './create-app.ts';

const gate = () => makeGateFixture().gate;

describe('createApp configuration', () => {
  it('matches the contract the CLI composes against', async () => {
    const created: { app: Hono; close(): Promise<void> } = createApp({ gate: gate(), auth: TEST_AUTH });
    expect(typeof created.app.fetch).toBe('function');
    await created.close();
  });

  it.each<[string, Partial<AuthConfig>]>([
    ['an empty agent token', { agents: [{ name: 'a', token: '' }] }],
    ['one token for an agent and an approver', { agents: [{ name: 'a', token: 'shared-token' }], approvers: [{ id: 'p', roles: [], token: 'shared-token' }] }],
    ['duplicate approvers', { approvers: [{ id: 'p', roles: [] }, { id: 'p', roles: ['x'] }] }],
    ['a proxy secret without its header', { trustedProxy: { userHeader: 'x-user', sharedSecret: 's' } }],
    ['a proxy without a user header', { trustedProxy: { userHeader: '' } }],
  ])('refuses %s', (_name, auth) => {
    expect(() => createApp({ gate: gate(), auth: { agents: [], approvers: [], ...auth } })).toThrow(
      expect.objectContaining({ code: 'invalid_auth_config' }),
    );
  });

  it('refuses a short session secret, a bad public origin and a bad webhook URL', () => {
    const auth = { agents: [], approvers: [] };
    expect(() => createApp({ gate: gate(), auth: { ...auth, sessionSecret: 'too-short' } })).toThrow(expect.objectContaining({ code: 'invalid_session_secret' }));
    expect(() => createApp({ gate: gate(), auth, publicOrigin: 'ftp://x' })).toThrow(expect.objectContaining({ code: 'invalid_public_origin' }));
    expect(() => createApp({ gate: gate(), auth, publicOrigin: 'not a url' })).toThrow(expect.objectContaining({ code: 'invalid_public_origin' }));
    expect(() => createApp({ gate: gate(), auth, webhook: { url: 'mailto:x@y', secret: 's' } })).toThrow(expect.objectContaining({ code: 'invalid_webhook' }));
  });

  it.each([
    ['a zero failure limit', { loginThrottle: { maxFailures: 0 } }],
    ['a fractional window', { bearerThrottle: { windowMs: 1.5 } }],
    ['a maximum lockout below the first', { loginAddressThrottle: { lockoutMs: 60_000, maxLockoutMs: 1000 } }],
    ['no room for keys', { throttleMaxKeys: 0 }],
  ])('refuses throttle tuning with %s', (_name, tuning) => {
    expect(() => createApp({ gate: gate(), auth: { agents: [], approvers: [] }, tuning })).toThrow(expect.objectContaining({ code: 'invalid_tuning' }));
  });
});
