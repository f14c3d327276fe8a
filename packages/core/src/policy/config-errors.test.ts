import { describe, expect, it } from 'vitest';
import { closestKey } from '../config/did-you-mean.ts';
import { PolicyError } from './errors.ts';
import { loadPolicy } from './load.ts';

function problemsOf(yaml: string): readonly string[] {
  try {
    loadPolicy(yaml, 'yaml');
  } catch (error) {
    if (error instanceof PolicyError) return error.problems;
    throw error;
  }
  throw new Error('the policy loaded');
}

describe('policy errors an author can act on', () => {
  it('every problem of the file at once: misspelled keys with "did you mean", and each `when` strictness problem in plain words', () => {
    const problems = problemsOf(`version: 1
rules:
  - id: transfers
    tool: transfer
    verdict: approve
    aproval: { approvers: { roles: [finance] } }
  - id: small
    tool: transfer
    when:
      properties: { amount: { maximum: 100 }, to: { minLength: 2 } }
    verdict: allow
  - id: other
    toools: [x]
    verdict: deny
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        'rules[0].aproval: unknown key; did you mean `approval`?',
        'rules[2].toools: unknown key; did you mean `tools`?',
        'rules[1].when: "properties" applies only to an object: add type: object next to it',
        'rules[1].when/properties/amount: "maximum" applies only to a number: add type: number next to it',
        'rules[1].when/properties/to: "minLength" applies only to a string: add type: string next to it',
      ]),
    );
    // In the author's words, not Ajv's option names.
    for (const problem of problems) expect(problem).not.toMatch(/strict mode|strictTypes/);
  });

  it('a misspelled JSON Schema keyword in `when` gets a suggestion too, and still refuses the policy', () => {
    expect(problemsOf('version: 1\nrules:\n  - { tool: t, verdict: allow, when: { type: object, maxProperites: 2 } }\n')).toEqual([
      'rules[0].when: unknown keyword "maxProperites"; did you mean "maxProperties"? (an unknown keyword would be ignored, so it is refused)',
    ]);
  });

  it('names the line to fix for a YAML indentation slip (the yaml package marks the line before)', () => {
    const deeper = problemsOf('version: 1\nrules:\n  - id: t\n    tool: transfer\n      verdict: allow\n');
    expect(deeper).toEqual([expect.stringMatching(/^\(yaml\) line 5: indented deeper than line 4 above it/)]);
    const shallower = problemsOf('version: 1\nrules:\n  - id: t\n    tool: transfer\n   verdict: allow\n');
    expect(shallower).toEqual([expect.stringMatching(/^\(yaml\) line 5, column 1: indented less than the list item above/)]);
    expect(problemsOf('version: 1\nrules:\n  - id: t\n\ttool: x\n')[0]).toMatch(/^\(yaml\) line 4, column 1: a tab used for indentation/);
    // A missing colon: both lines are named.
    expect(problemsOf('version: 1\nrules:\n  - id: t\n    tool transfer\n    verdict: allow\n')[0]).toMatch(/line 5: line 4 runs on into it .*missing ":" on line 4/);
  });
});

describe('closestKey', () => {
  it('suggests within one edit per four characters, swaps included, and nothing for unrelated keys', () => {
    const keys = ['approval', 'approvers', 'tools', 'tool', 'verdict', 'required'];
    expect(closestKey('aproval', keys)).toBe('approval');
    expect(closestKey('verdcit', keys)).toBe('verdict');
    expect(closestKey('requried', keys)).toBe('required');
    expect(closestKey('extra', keys)).toBeUndefined();
    expect(closestKey('colour', keys)).toBeUndefined();
    expect(closestKey('x'.repeat(10_000), keys)).toBeUndefined();
  });
});
