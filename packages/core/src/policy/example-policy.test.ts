import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { EXAMPLE_POLICY_YAML } from './example-policy.ts';
import { loadPolicy } from './load.ts';
import type { PolicyInput } from './types.ts';

function policyInput(toolName: string, args: unknown = {}): PolicyInput {
  return { toolName, args, principal: 'user@example.com', runId: 'run-1', sessionId: 'session-1' };
}

describe('EXAMPLE_POLICY_YAML', () => {
  const policy = loadPolicy(EXAMPLE_POLICY_YAML, 'yaml');

  it('loads, from YAML and as JSON', () => {
    expect(policy.ruleIds).toEqual(['read-only', 'small-transfers', 'large-transfers', 'no-deletes', 'deploy']);
    expect(loadPolicy(JSON.stringify(parseYaml(EXAMPLE_POLICY_YAML)), 'json').ruleIds).toEqual(policy.ruleIds);
  });

  it('allows read-only tools', () => {
    for (const tool of ['get_user', 'list_repos', 'read_file', 'search_docs']) {
      expect(policy.verdictFor(policyInput(tool))).toEqual({ kind: 'allow', ruleId: 'read-only', namesTool: false, description: 'Tools that only read.' });
    }
  });

  it('allows transfers up to 100 and asks finance above', () => {
    expect(policy.verdictFor(policyInput('transfer', { amount: 100, to: 'bob' }))).toEqual({
      kind: 'allow',
      ruleId: 'small-transfers',
      namesTool: true,
      description: 'Transfers of at most 100 run without approval.',
    });
    expect(policy.verdictFor(policyInput('transfer', { amount: 0 })).kind).toBe('allow');
    for (const args of [{ amount: 101 }, { amount: 100.01 }, { amount: -5 }, { amount: '1' }, {}]) {
      expect(policy.verdictFor(policyInput('transfer', args))).toEqual({
        kind: 'approve',
        ruleId: 'large-transfers',
        description: 'Every other transfer (larger, negative or malformed amount) needs finance.',
        approval: { eligible: { roles: ['finance'] }, requiredApprovals: 1, ttlSeconds: 600 },
      });
    }
  });

  it('denies deletes and anything unlisted', () => {
    expect(policy.verdictFor(policyInput('delete_repo'))).toMatchObject({ kind: 'deny', ruleId: 'no-deletes', reason: 'policy_deny' });
    expect(policy.verdictFor(policyInput('unknown_tool'))).toEqual({
      kind: 'deny',
      ruleId: undefined,
      reason: 'unclassified_tool',
    });
    expect(policy.verdictFor(policyInput('Get_user')).kind).toBe('deny');
  });

  it('needs two release managers to deploy', () => {
    expect(policy.verdictFor(policyInput('deploy', { env: 'prod' }))).toEqual({
      kind: 'approve',
      ruleId: 'deploy',
      description: 'Deploys need two different release managers.',
      approval: { eligible: { roles: ['release-manager'] }, requiredApprovals: 2, ttlSeconds: 900 },
    });
  });
});
