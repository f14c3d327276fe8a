import { describe, expect, it } from 'vitest';
import { PolicyError } from './errors.ts';
import { EXAMPLE_POLICY_YAML } from './example-policy.ts';
import { loadPolicy } from './load.ts';
import { RulePolicy } from './rule-policy.ts';

const RULES = [{ tool: 'a', verdict: 'allow' as const }];

function problemsOf(definitionReview: unknown): readonly string[] {
  try {
    new RulePolicy({ version: 1, rules: RULES, definitionReview });
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
    throw error;
  }
  return [];
}

describe('policy definitionReview', () => {
  it('is absent unless the document names it: the gate keeps its default', () => {
    expect(new RulePolicy({ version: 1, rules: RULES }).definitionReview).toBeUndefined();
  });

  it('names who reviews a new or changed definition, how many, and for how long', () => {
    const policy = new RulePolicy({
      version: 1,
      rules: RULES,
      definitionReview: { approvers: { roles: ['security'], approvers: ['ada'] }, required: 2, ttlSeconds: 3600 },
    });
    expect(policy.definitionReview).toEqual({ eligible: { roles: ['security'], approvers: ['ada'] }, requiredApprovals: 2, ttlSeconds: 3600 });
    // A copy: a caller cannot widen the policy's reviewers.
    policy.definitionReview!.eligible.roles!.push('everyone');
    expect(policy.definitionReview!.eligible.roles).toEqual(['security']);
    expect(new RulePolicy({ version: 1, rules: RULES, definitionReview: { approvers: { roles: ['x'] } } }).definitionReview).toEqual({
      eligible: { roles: ['x'] },
      requiredApprovals: 1,
      ttlSeconds: undefined,
    });
  });

  it('is validated strictly, every problem with its path', () => {
    expect(problemsOf({ approvers: { roles: ['x'] }, extra: 1 })).toEqual(['definitionReview.extra: unknown key']);
    expect(problemsOf({ required: 1 })[0]).toMatch(/^definitionReview\.approvers: /);
    // A review is on nobody's behalf: "the principal approves" would mean nobody.
    expect(problemsOf({ approvers: { principalSelf: true } })).toEqual(['definitionReview.approvers.principalSelf: unknown key']);
    expect(problemsOf({ approvers: { roles: [] } })).toEqual([
      'definitionReview.approvers: must name at least one way to approve (principalSelf: true, or non-empty approvers or roles)',
    ]);
    expect(problemsOf({ approvers: { roles: [''] } })).toEqual(['definitionReview.approvers.roles[0]: must not be empty']);
    expect(problemsOf({ approvers: { roles: ['x', 'x'] } })).toEqual(['definitionReview.approvers.roles[1]: duplicate "x"']);
    expect(problemsOf({ approvers: { approvers: ['ada'] }, required: 2 })).toEqual(['definitionReview.required: 2 approvals required but only 1 eligible']);
    expect(problemsOf({ approvers: { roles: ['x'] }, required: 0 })).toEqual(['definitionReview.required: must be at least 1']);
    expect(problemsOf({ approvers: { roles: ['x'] }, ttlSeconds: 0 })).toEqual(['definitionReview.ttlSeconds: must be at least 1']);
    expect(problemsOf({ approvers: { roles: ['x'] }, ttlSeconds: 10_000_000 })).toEqual(['definitionReview.ttlSeconds: must be at most 2592000']);
    expect(problemsOf([])[0]).toMatch(/^definitionReview: /);
  });

  it('the example policy names the admin role, a week to decide', () => {
    expect(loadPolicy(EXAMPLE_POLICY_YAML, 'yaml').definitionReview).toEqual({ eligible: { roles: ['admin'] }, requiredApprovals: 1, ttlSeconds: 604800 });
  });
});
