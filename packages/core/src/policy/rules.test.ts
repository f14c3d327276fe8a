import { describe, expect, it } from 'vitest';
import { PolicyError } from './errors.ts';
import { RulePolicy } from './rule-policy.ts';
import { validatePolicyDocument } from './rules.ts';
import type { PolicyInput } from './types.ts';

function policyInput(toolName: string, args: unknown = {}): PolicyInput {
  return { toolName, args, principal: 'user@example.com', runId: 'run-1', sessionId: 'session-1' };
}

function problemsOf(document: unknown): string[] {
  const result = validatePolicyDocument(document);
  if (result.ok) throw new Error('expected the document to be rejected');
  return result.problems;
}

const allow = (tool: string) => ({ tool, verdict: 'allow' });

describe('validatePolicyDocument', () => {
  it('rejects an unknown verdict with its path and the allowed values', () => {
    expect(problemsOf({ version: 1, rules: [allow('a'), allow('b'), { tool: 'c', verdict: 'maybe' }] })).toEqual([
      'rules[2].verdict: expected "allow" | "approve" | "deny"',
    ]);
  });

  it('rejects unknown keys at every level', () => {
    expect(problemsOf({ version: 1, rules: [], extra: 1 })).toEqual(['extra: unknown key']);
    expect(problemsOf({ version: 1, rules: [{ ...allow('a'), verdcit: 'deny' }] })).toEqual([
      'rules[0].verdcit: unknown key; did you mean `verdict`?',
    ]);
    expect(
      problemsOf({
        version: 1,
        rules: [{ tool: 'a', verdict: 'approve', approval: { approvers: { role: ['x'] }, requried: 2 } }],
      }),
    ).toEqual([
      'rules[0].approval.approvers.role: unknown key; did you mean `roles`?',
      'rules[0].approval.requried: unknown key; did you mean `required`?',
    ]);
    expect(problemsOf({ version: 1, defaults: { ttl: 5 }, rules: [] })).toEqual(['defaults.ttl: unknown key']);
  });

  it('reports every shape problem at once, with paths', () => {
    expect(problemsOf({ version: 2, rules: [{ tool: 7, verdict: 'allow' }, { tool: '', verdict: 'deny' }] })).toEqual([
      'version: expected 1',
      'rules[0].tool: expected string, got number',
      'rules[1].tool: must not be empty',
    ]);
    expect(problemsOf({ rules: [{ tool: 'a' }] })).toEqual(['version: required', 'rules[0].verdict: required']);
    expect(problemsOf(null)).toEqual(['(root): expected object, got null']);
    expect(problemsOf([])).toEqual(['(root): expected object, got array']);
  });

  it('reports a `when` schema that does not compile, with the rule path', () => {
    const bad = (when: unknown) => problemsOf({ version: 1, rules: [allow('x'), { ...allow('a'), when }] });
    expect(bad({ type: 'objekt' })).toEqual(['rules[1].when/type: must be equal to one of the allowed values']);
    // Every meta-schema problem of one condition at once, each at its place.
    expect(bad({ type: 'objekt', properties: { amount: { minimum: 'ten' } }, required: 'amount' })).toEqual([
      'rules[1].when/properties/amount/minimum: must be number',
      'rules[1].when/type: must be equal to one of the allowed values',
      'rules[1].when/required: must be array',
    ]);
    expect(bad({ type: 'object', maximumm: 3 })[0]).toMatch(/^rules\[1\]\.when: unknown keyword "maximumm"; did you mean "maximum"\?/);
    expect(bad({ type: 'string', format: 'email' })[0]).toMatch(/^rules\[1\]\.when: unknown format "email"/);
    expect(bad({ $ref: 'https://example.com/schema.json' })[0]).toMatch(/^rules\[1\]\.when: can't resolve reference/);
    expect(bad({ type: 'string', pattern: '(' })[0]).toMatch(/^rules\[1\]\.when: Invalid regular expression/);
    expect(bad({ $async: true, type: 'object' })).toEqual(['rules[1].when: $async schemas are not supported']);
    expect(bad({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' })[0]).toMatch(
      /^rules\[1\]\.when: only JSON Schema draft 2020-12/,
    );
    expect(bad('object')).toEqual(['rules[1].when: expected a JSON Schema object']);
    expect(bad([])).toEqual(['rules[1].when: expected a JSON Schema object']);
  });

  it('accepts draft 2020-12 conditions, including a $schema declaration and $defs', () => {
    const result = validatePolicyDocument({
      version: 1,
      rules: [
        {
          ...allow('a'),
          when: {
            $schema: 'https://json-schema.org/draft/2020-12/schema',
            $id: 'https://policy.example/rule-a',
            type: 'object',
            properties: { n: { $ref: '#/$defs/small' } },
            $defs: { small: { type: 'integer', maximum: 3 } },
          },
        },
        // Same $id again: each condition is compiled on its own.
        { ...allow('b'), when: { $id: 'https://policy.example/rule-a', type: 'object' } },
      ],
    });
    expect(result.ok).toBe(true);
  });

  it('rejects duplicate ids, including a clash with a default id', () => {
    expect(problemsOf({ version: 1, rules: [{ ...allow('a'), id: 'x' }, { ...allow('b'), id: 'x' }] })).toEqual([
      'rules[1].id: duplicate rule id "x" (first used by rules[0])',
    ]);
    expect(problemsOf({ version: 1, rules: [{ ...allow('a'), id: 'rule-1' }, allow('b')] })).toEqual([
      'rules[1].id: duplicate rule id "rule-1" (first used by rules[0])',
    ]);
    expect(problemsOf({ version: 1, rules: [{ ...allow('a'), id: 'has space' }] })[0]).toMatch(/^rules\[0\]\.id: /);
  });

  it('allows `approval` only on approve rules', () => {
    expect(problemsOf({ version: 1, rules: [{ ...allow('a'), approval: { required: 1 } }] })).toEqual([
      'rules[0].approval: only allowed when verdict is "approve"',
    ]);
    expect(problemsOf({ version: 1, rules: [{ tool: 'a', verdict: 'deny', approval: {} }] })).toEqual([
      'rules[0].approval: only allowed when verdict is "approve"',
    ]);
  });

  it('checks approval requirements', () => {
    const approve = (approval: unknown) => ({ version: 1, rules: [{ tool: 'a', verdict: 'approve', approval }] });
    expect(problemsOf(approve({ required: 0 }))).toEqual(['rules[0].approval.required: must be at least 1']);
    expect(problemsOf(approve({ required: 1.5 }))[0]).toMatch(/^rules\[0\]\.approval\.required: expected int/);
    expect(problemsOf(approve({ ttlSeconds: 0 }))).toEqual(['rules[0].approval.ttlSeconds: must be at least 1']);
    expect(problemsOf(approve({ ttlSeconds: 10_000_000 }))).toEqual([
      'rules[0].approval.ttlSeconds: must be at most 2592000',
    ]);
    const noWay = 'rules[0].approval.approvers: must name at least one way to approve';
    expect(problemsOf(approve({ approvers: {} }))[0]).toMatch(noWay);
    expect(problemsOf(approve({ approvers: { principalSelf: false, approvers: [], roles: [] } }))[0]).toMatch(noWay);
    expect(problemsOf(approve({ approvers: { approvers: ['a', 'b', 'a'] } }))).toEqual([
      'rules[0].approval.approvers.approvers[2]: duplicate "a"',
    ]);
    expect(problemsOf(approve({ approvers: { approvers: ['a', 'b'] }, required: 3 }))).toEqual([
      'rules[0].approval.required: 3 approvals required but only 2 eligible',
    ]);
    expect(problemsOf({ version: 1, rules: [{ tool: 'a', verdict: 'approve', tools: ['b'] }] })).toEqual([
      'rules[0]: give either "tool" or "tools", not both',
    ]);
    expect(problemsOf({ version: 1, rules: [{ verdict: 'deny' }] })).toEqual(['rules[0].tool: required (or "tools")']);
    expect(problemsOf({ version: 1, rules: [{ tools: [], verdict: 'deny' }] })).toEqual([
      'rules[0].tools: must not be empty',
    ]);
  });

  it('refuses the removed `sensitive` flag: no raw arguments are ever logged, so it switched nothing', () => {
    const rule = { tool: 'a', verdict: 'approve', approval: { approvers: { roles: ['x'] }, sensitive: true } };
    expect(problemsOf({ version: 1, rules: [rule] })).toEqual(['rules[0].approval.sensitive: unknown key']);
  });

  it('fills approval defaults: role "approver", 1 approval, default ttl', () => {
    const p = new RulePolicy({
      version: 1,
      defaults: { approvalTtlSeconds: 120 },
      rules: [
        { tool: 'a', verdict: 'approve' },
        { tool: 'b', verdict: 'approve', approval: { approvers: { principalSelf: true } } },
      ],
    });
    expect(p.verdictFor(policyInput('a'))).toEqual({
      kind: 'approve',
      ruleId: 'rule-0',
      approval: { eligible: { roles: ['approver'] }, requiredApprovals: 1, ttlSeconds: 120 },
    });
    expect(p.verdictFor(policyInput('b'))).toMatchObject({
      approval: { eligible: { principalSelf: true }, ttlSeconds: 120 },
    });
    const noDefaults = new RulePolicy({ version: 1, rules: [{ tool: 'a', verdict: 'approve' }] });
    expect(noDefaults.verdictFor(policyInput('a'))).toMatchObject({ approval: { ttlSeconds: 900 } });
  });

  it('still checks the rules that parse when another part of the document does not', () => {
    expect(
      problemsOf({
        version: 2,
        rules: [
          { ...allow('a'), id: 'x', when: { type: 'nope' } },
          { tool: 'b', verdict: 'maybe' },
          { ...allow('c'), id: 'x' },
        ],
      }),
    ).toEqual([
      'version: expected 1',
      expect.stringMatching(/^rules\[1\]\.verdict: expected "allow"/),
      'rules[0].when/type: must be equal to one of the allowed values',
      'rules[2].id: duplicate rule id "x" (first used by rules[0])',
    ]);
  });

  it('collects problems from several rules in one pass', () => {
    expect(
      problemsOf({
        version: 1,
        rules: [
          { ...allow('a'), id: 'x', when: { type: 'nope' } },
          { ...allow('b'), id: 'x', approval: {} },
        ],
      }),
    ).toHaveLength(3);
  });

  it('makes the RulePolicy constructor throw PolicyError invalid_policy with every problem in the message', () => {
    let caught: unknown;
    try {
      new RulePolicy({ version: 1, rules: [{ tool: 'a', verdict: 'maybe' }], extra: true });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(PolicyError);
    const error = caught as PolicyError;
    expect(error.code).toBe('invalid_policy');
    expect([...error.problems].sort()).toEqual([
      'extra: unknown key',
      'rules[0].verdict: expected "allow" | "approve" | "deny"',
    ]);
    expect(error.message).toContain('rules[0].verdict: expected "allow" | "approve" | "deny"');
    expect(error.message).toContain('extra: unknown key');
  });
});

describe('approval.passkey', () => {
  it('compiles passkey: required into the approve outcome and refuses anything else', async () => {
    const { validatePolicyDocument } = await import('./rules.ts');
    const ok = validatePolicyDocument({ version: 1, rules: [{ id: 't', tool: 'transfer', verdict: 'approve', approval: { passkey: 'required' } }] });
    if (!ok.ok) throw new Error(ok.problems.join('; '));
    expect(ok.rules[0]?.outcome).toMatchObject({ kind: 'approve', approval: { passkey: 'required' } });
    for (const bad of ['optional', true, 'REQUIRED']) {
      const refused = validatePolicyDocument({ version: 1, rules: [{ tool: 'transfer', verdict: 'approve', approval: { passkey: bad } }] });
      expect(refused).toMatchObject({ ok: false, problems: [expect.stringContaining('rules[0].approval.passkey')] });
    }
    const onAllow = validatePolicyDocument({ version: 1, rules: [{ tool: 'transfer', verdict: 'allow', approval: { passkey: 'required' } }] });
    expect(onAllow.ok).toBe(false);
  });

  it('a plugged-in engine whose verdict carries another passkey value is malformed (deny), never "no passkey"', async () => {
    const { toWellFormedVerdict } = await import('./verdict-shape.ts');
    const base = { kind: 'approve', ruleId: 'r', approval: { eligible: { roles: ['a'] }, requiredApprovals: 1, ttlSeconds: 60 } };
    expect(toWellFormedVerdict({ ...base, approval: { ...base.approval, passkey: 'required' } })).toMatchObject({ approval: { passkey: 'required' } });
    expect(toWellFormedVerdict({ ...base, approval: { ...base.approval, passkey: 'yes' } })).toBeUndefined();
  });
});
