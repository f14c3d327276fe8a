import { describe, expect, it } from 'vitest';
import { PolicyError } from './errors.ts';
import { loadPolicy } from './load.ts';
import { RulePolicy } from './rule-policy.ts';
import { MAX_RULE_DESCRIPTION_LENGTH } from './rules.ts';
import { askPolicy } from './ask-policy.ts';

const input = (toolName: string) => ({ toolName, args: {}, principal: 'p', runId: 'r', sessionId: 's' });

describe('rule descriptions', () => {
  it('every verdict of a described rule carries its description; an undescribed rule has none', () => {
    const policy = loadPolicy(
      `version: 1
rules:
  - { id: reads, tool: read, verdict: allow, description: Reading is harmless. }
  - { id: pay, tool: pay, verdict: approve, description: "Payments need finance: money leaves the company." }
  - { id: rm, tool: rm, verdict: deny, description: Nobody deletes. }
  - { id: plain, tool: plain, verdict: approve }
`,
      'yaml',
    );
    expect(policy.verdictFor(input('read'))).toMatchObject({ kind: 'allow', description: 'Reading is harmless.' });
    expect(policy.verdictFor(input('pay'))).toMatchObject({ kind: 'approve', ruleId: 'pay', description: 'Payments need finance: money leaves the company.' });
    expect(policy.verdictFor(input('rm'))).toMatchObject({ kind: 'deny', description: 'Nobody deletes.' });
    expect('description' in policy.verdictFor(input('plain'))).toBe(false);
  });

  it('refuses an empty, blank, non-string or over-long description with the rule path', () => {
    for (const description of ['', '   ', 42, 'x'.repeat(MAX_RULE_DESCRIPTION_LENGTH + 1)]) {
      const document = { version: 1, rules: [{ id: 'r', tool: 't', verdict: 'allow', description }] };
      expect(() => new RulePolicy(document)).toThrow(PolicyError);
      try {
        new RulePolicy(document);
      } catch (error) {
        expect((error as PolicyError).message).toMatch(/rules\[0\]\.description|rules\.0\.description|description/);
      }
    }
  });

  it("a plugged-in engine's malformed description makes the verdict deny (unknown_verdict), never an approve without it", async () => {
    const approval = { eligible: { roles: ['approver'] }, requiredApprovals: 1, ttlSeconds: 60 };
    for (const description of [42, '', 'x'.repeat(MAX_RULE_DESCRIPTION_LENGTH + 1), { text: 'hi' }]) {
      const engine = { verdictFor: () => ({ kind: 'allow', ruleId: 'r', description, approval }) };
      expect(await askPolicy(engine as never, input('t'))).toEqual({ kind: 'deny', ruleId: undefined, reason: 'unknown_verdict' });
    }
    const good = { verdictFor: () => ({ kind: 'approve', ruleId: 'r', approval, description: 'Why.' }) };
    expect(await askPolicy(good as never, input('t'))).toMatchObject({ kind: 'approve', description: 'Why.' });
  });
});
