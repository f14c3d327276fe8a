import { describe, expect, it } from 'vitest';
import { RulePolicy } from './rule-policy.ts';

const policy = (rules: unknown[]) => new RulePolicy({ version: 1, rules });

describe('policy warnings: rules that can never match', () => {
  it('flags a rule shadowed by an earlier unconditional rule with the same or a wider pattern', () => {
    const warnings = policy([
      { id: 'all-reads', tool: 'read_*', verdict: 'allow' },
      { id: 'read-secrets', tool: 'read_secret', verdict: 'deny' },
      { id: 'reads-again', tools: ['read_file', 'read_*'], verdict: 'approve' },
      { id: 'everything', tool: '*', verdict: 'deny' },
      { id: 'too-late', tool: 'transfer', verdict: 'approve' },
    ]).warnings();
    expect(warnings).toEqual([
      expect.stringMatching(/^rules\[1\]: rule "read-secrets" can never match: rule "all-reads" \(rules\[0\]\)/),
      expect.stringMatching(/^rules\[2\]: rule "reads-again" can never match: rule "all-reads"/),
      expect.stringMatching(/^rules\[4\]: rule "too-late" can never match: rule "everything" \(rules\[3\]\)/),
    ]);
  });

  it('does not flag rules an earlier rule only covers under a condition, or only partly', () => {
    expect(
      policy([
        { id: 'small', tool: 'transfer', when: { type: 'object', properties: { amount: { type: 'number', maximum: 100 } } }, verdict: 'allow' },
        { id: 'rest', tool: 'transfer', verdict: 'approve' },
        { id: 'read-file', tool: 'read_file', verdict: 'allow' },
        { id: 'reads', tool: 'read_*', verdict: 'deny' },
        { id: 'some', tools: ['read_file', 'delete_repo'], verdict: 'deny' },
      ]).warnings(),
    ).toEqual([]);
  });

  it('with a catalogue, flags patterns that match no tool in it', () => {
    const warnings = policy([
      { id: 'reads', tools: ['read_*', 'get_balanse'], verdict: 'allow' },
      { id: 'transfers', tool: 'transfer', verdict: 'approve' },
    ]).warnings(['read_file', 'get_balance', 'transfer']);
    expect(warnings).toEqual(['rules[0]: pattern "get_balanse" of rule "reads" matches no tool in the catalogue']);
  });
});
