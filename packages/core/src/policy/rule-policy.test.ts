import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from './load.ts';
import { RulePolicy } from './rule-policy.ts';
import type { PolicyInput } from './types.ts';

function policyInput(toolName: string, args: unknown = {}): PolicyInput {
  return { toolName, args, principal: 'user@example.com', runId: 'run-1', sessionId: 'session-1' };
}

const BRIEF_POLICY = `
version: 1
defaults:
  approvalTtlSeconds: 900
rules:
  - id: small-transfers
    tool: transfer
    when:
      type: object
      properties: { amount: { type: number, maximum: 100 } }
      required: [amount]
    verdict: allow
  - tool: transfer
    verdict: approve
    approval:
      approvers: { principalSelf: false, approvers: ["alice@example.com"], roles: ["finance"] }
      required: 2
      ttlSeconds: 600
  - tool: "delete_*"
    verdict: deny
`;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('RulePolicy', () => {
  const policy = loadPolicy(BRIEF_POLICY, 'yaml');

  it('allows a transfer of 100 and asks approval for 101', () => {
    expect(policy.verdictFor(policyInput('transfer', { amount: 100 }))).toEqual({ kind: 'allow', ruleId: 'small-transfers', namesTool: true });
    expect(policy.verdictFor(policyInput('transfer', { amount: 101 }))).toEqual({
      kind: 'approve',
      ruleId: 'rule-1',
      approval: {
        eligible: { principalSelf: false, approvers: ['alice@example.com'], roles: ['finance'] },
        requiredApprovals: 2,
        ttlSeconds: 600,
      },
    });
  });

  it('denies delete_* by rule and an unknown tool as unclassified', () => {
    expect(policy.verdictFor(policyInput('delete_repo'))).toEqual({ kind: 'deny', ruleId: 'rule-2', reason: 'policy_deny' });
    expect(policy.verdictFor(policyInput('unknown_tool'))).toEqual({
      kind: 'deny',
      ruleId: undefined,
      reason: 'unclassified_tool',
    });
  });

  it('falls through to the next rule when `when` does not hold (missing or ill-typed arg)', () => {
    for (const args of [{}, { amount: '50' }, { amount: null }, { amount: [50] }, null, 'amount', [50]]) {
      expect(policy.verdictFor(policyInput('transfer', args)).kind).toBe('approve');
    }
  });

  it('uses the first matching rule, in document order', () => {
    const denyFirst = new RulePolicy({
      version: 1,
      rules: [
        { id: 'deny-all-delete', tool: 'delete_*', verdict: 'deny' },
        { id: 'allow-tmp', tool: 'delete_tmp', verdict: 'allow' },
      ],
    });
    const allowFirst = new RulePolicy({
      version: 1,
      rules: [
        { id: 'allow-tmp', tool: 'delete_tmp', verdict: 'allow' },
        { id: 'deny-all-delete', tool: 'delete_*', verdict: 'deny' },
      ],
    });
    expect(denyFirst.verdictFor(policyInput('delete_tmp'))).toMatchObject({ kind: 'deny', ruleId: 'deny-all-delete' });
    expect(allowFirst.verdictFor(policyInput('delete_tmp'))).toEqual({ kind: 'allow', ruleId: 'allow-tmp', namesTool: true });
    expect(allowFirst.verdictFor(policyInput('delete_db'))).toMatchObject({ kind: 'deny', ruleId: 'deny-all-delete' });
    expect(allowFirst.ruleIds).toEqual(['allow-tmp', 'deny-all-delete']);
  });

  it('treats glob metacharacters literally and names case-sensitively', () => {
    const p = new RulePolicy({ version: 1, rules: [{ tool: 'a.b*', verdict: 'allow' }] });
    expect(p.verdictFor(policyInput('a.bc')).kind).toBe('allow');
    expect(p.verdictFor(policyInput('axb'))).toMatchObject({ kind: 'deny', reason: 'unclassified_tool' });
    expect(p.verdictFor(policyInput('A.bc'))).toMatchObject({ kind: 'deny', reason: 'unclassified_tool' });
  });

  it('matches any name of a `tools` list', () => {
    const p = new RulePolicy({ version: 1, rules: [{ tools: ['get_*', 'search'], verdict: 'allow' }] });
    expect(p.verdictFor(policyInput('get_user')).kind).toBe('allow');
    expect(p.verdictFor(policyInput('search')).kind).toBe('allow');
    expect(p.verdictFor(policyInput('searches')).kind).toBe('deny');
  });

  it('does not mutate the arguments while evaluating', () => {
    const p = new RulePolicy({
      version: 1,
      rules: [
        {
          tool: 'transfer',
          when: {
            type: 'object',
            properties: { amount: { type: 'number', default: 1 }, memo: { type: 'string', default: 'x' } },
            additionalProperties: false,
            required: ['amount'],
          },
          verdict: 'allow',
        },
        { tool: 'transfer', verdict: 'deny' },
      ],
    });
    const args = deepFreeze({ amount: '7', nested: { list: [1, 2] } });
    const before = structuredClone(args);
    // No coercion ('7' is not a number), no defaults, no removal of `nested`.
    expect(p.verdictFor(policyInput('transfer', args))).toMatchObject({ kind: 'deny', reason: 'policy_deny' });
    const ok = deepFreeze({ amount: 7 });
    expect(p.verdictFor(policyInput('transfer', ok)).kind).toBe('allow');
    expect(args).toEqual(before);
    expect(ok).toEqual({ amount: 7 });

    // Unfrozen too, so a mutating validator could not hide behind a silently failed write.
    const loose = { amount: '7' };
    const extra = { amount: 7, extra: true };
    const plain = { amount: 7 };
    p.verdictFor(policyInput('transfer', loose));
    p.verdictFor(policyInput('transfer', extra));
    p.verdictFor(policyInput('transfer', plain));
    expect(loose).toEqual({ amount: '7' });
    expect(extra).toEqual({ amount: 7, extra: true });
    expect(plain).toEqual({ amount: 7 });
  });

  it('ignores inherited properties when checking `when`', () => {
    const p = new RulePolicy({
      version: 1,
      rules: [
        {
          tool: 'transfer',
          when: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
          verdict: 'allow',
        },
      ],
    });
    const inherited = Object.create({ amount: 5 }) as object;
    expect(p.verdictFor(policyInput('transfer', inherited)).kind).toBe('deny');
  });

  it('returns a fresh verdict each time, so a caller cannot change the rule', () => {
    const first = policy.verdictFor(policyInput('transfer', { amount: 500 }));
    if (first.kind !== 'approve') throw new Error('expected approve');
    first.approval.requiredApprovals = 0;
    first.approval.eligible.roles?.push('anyone');
    const second = policy.verdictFor(policyInput('transfer', { amount: 500 }));
    expect(second).toMatchObject({ approval: { requiredApprovals: 2, eligible: { roles: ['finance'] } } });
  });

  it('denies a call without a string tool name', () => {
    const bad = { ...policyInput('x'), toolName: 42 } as unknown as Parameters<RulePolicy['verdictFor']>[0];
    expect(policy.verdictFor(bad)).toEqual({ kind: 'deny', ruleId: undefined, reason: 'policy_error' });
  });

  it('property: any tool name no rule matches is denied as unclassified', () => {
    const matched = (name: string) => name === 'transfer' || name.startsWith('delete_');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `transfer${s}`),
          fc.string().map((s) => `${s}delete_`),
          fc.constantFrom('Transfer', 'TRANSFER', 'delete', 'Delete_x', 'transfer ', ' delete_x'),
        ),
        fc.jsonValue(),
        (name, args) => {
          fc.pre(!matched(name));
          expect(policy.verdictFor(policyInput(name, args))).toEqual({
            kind: 'deny',
            ruleId: undefined,
            reason: 'unclassified_tool',
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('property: an empty policy denies everything', () => {
    const empty = new RulePolicy({ version: 1, rules: [] });
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), (name, args) => {
        expect(empty.verdictFor(policyInput(name, args))).toMatchObject({ kind: 'deny', reason: 'unclassified_tool' });
      }),
    );
  });
});
