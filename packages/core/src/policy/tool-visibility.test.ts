import { describe, expect, it } from 'vitest';
import { makeGateFixture } from '../testing/gate-fixture.ts';
import { loadPolicy } from './load.ts';
import { toolVisibilitySafely } from './safe-visibility.ts';
import type { PolicyEngine } from './types.ts';

const POLICY = `
version: 1
rules:
  - id: no-secrets
    tool: "fs__read_secret*"
    verdict: deny
  - id: reads
    tool: "fs__read*"
    verdict: allow
  - id: big-writes
    tool: fs__write_file
    when: { type: object, properties: { force: { type: boolean } }, required: [force] }
    verdict: deny
  - id: writes
    tool: fs__write_file
    verdict: approve
  - id: tmp-only
    tool: fs__delete
    when: { type: object, properties: { path: { type: string, pattern: "^/tmp/" } }, required: [path] }
    verdict: allow
  - id: no-delete
    tool: fs__delete
    verdict: deny
  - id: partial-deny
    tool: fs__move
    when: { type: object, properties: { force: { type: boolean } }, required: [force] }
    verdict: deny
`;

describe('policy: is a tool denied for every argument (tools/list hides it)', () => {
  const policy = loadPolicy(POLICY, 'yaml');
  const visible = (tool: string) => policy.toolVisibility?.(tool, 'user:42');

  it('a tool whose first argument-independent rule denies is hidden, with that rule', () => {
    expect(visible('fs__read_secret_key')).toEqual({ visible: false, ruleId: 'no-secrets', reason: 'policy_deny' });
  });

  it('a tool no rule matches is hidden as unclassified (deny by default)', () => {
    expect(visible('fs__format_disk')).toEqual({ visible: false, ruleId: undefined, reason: 'unclassified_tool' });
  });

  it('a tool only some arguments can reach is visible, whatever the order of `when` rules', () => {
    expect(visible('fs__read_file')).toEqual({ visible: true });
    expect(visible('fs__write_file')).toEqual({ visible: true }); // deny-when first, then approve
    expect(visible('fs__delete')).toEqual({ visible: true }); // allow-when first, then deny
  });

  it('a deny `when` with nothing after it is hidden: other arguments are unclassified', () => {
    expect(visible('fs__move')).toEqual({ visible: false, ruleId: undefined, reason: 'unclassified_tool' });
  });

  it('agrees with verdictFor: every hidden tool is denied for sample arguments', () => {
    for (const tool of ['fs__read_secret_key', 'fs__format_disk', 'fs__move']) {
      for (const args of [{}, { force: true }, { path: '/tmp/a' }]) {
        const verdict = policy.verdictFor({ toolName: tool, args, principal: 'user:42', runId: 'r', sessionId: 's' });
        expect(verdict.kind).toBe('deny');
      }
    }
  });
});

describe('toolVisibilitySafely: never throws, unknown engines show tools, broken ones hide them', () => {
  const verdictFor = () => ({ kind: 'allow' as const, ruleId: 'r' });
  it('an engine without toolVisibility shows every tool', async () => {
    expect(await toolVisibilitySafely({ verdictFor }, 't', 'p')).toEqual({ visible: true });
  });
  it('a throwing or rejecting engine hides the tool (policy_error)', async () => {
    const throwing: PolicyEngine = {
      verdictFor,
      toolVisibility: () => {
        throw new Error('boom');
      },
    };
    const rejecting: PolicyEngine = { verdictFor, toolVisibility: () => Promise.reject(new Error('down')) };
    expect(await toolVisibilitySafely(throwing, 't', 'p')).toMatchObject({ visible: false, reason: 'policy_error' });
    expect(await toolVisibilitySafely(rejecting, 't', 'p')).toMatchObject({ visible: false, reason: 'policy_error' });
  });
  it('a malformed answer hides the tool (unknown_verdict)', async () => {
    for (const bad of [null, 'yes', { visible: 'true' }, { visible: false, reason: 'nope' }, { visible: false, reason: 'policy_deny', ruleId: 7 }]) {
      const engine = { verdictFor, toolVisibility: () => bad } as unknown as PolicyEngine;
      expect(await toolVisibilitySafely(engine, 't', 'p')).toMatchObject({ visible: false, reason: 'unknown_verdict' });
    }
  });
  it('the gate exposes it for every integration', async () => {
    const f = makeGateFixture({ policy: loadPolicy(POLICY, 'yaml') });
    expect(await f.gate.toolVisibility('fs__read_secret_key', 'user:42')).toMatchObject({ visible: false, ruleId: 'no-secrets' });
    expect(await f.gate.toolVisibility('fs__read_file', 'user:42')).toEqual({ visible: true });
  });
});
