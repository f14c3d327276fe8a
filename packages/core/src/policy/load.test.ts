import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PolicyError } from './errors.ts';
import { loadPolicy, loadPolicyFile } from './load.ts';
import type { PolicyInput } from './types.ts';

function policyInput(toolName: string, args: unknown = {}): PolicyInput {
  return { toolName, args, principal: 'user@example.com', runId: 'run-1', sessionId: 'session-1' };
}

const YAML_POLICY = `
version: 1
rules:
  - id: small-transfers
    tool: transfer
    when:
      type: object
      properties: { amount: { type: number, maximum: 100 } }
      required: [amount]
    verdict: allow
  - id: big-transfers
    tool: transfer
    verdict: approve
    approval:
      approvers: &finance { roles: [finance] }
      required: 2
  - id: refunds
    tool: refund
    verdict: approve
    approval:
      approvers: *finance
  - tool: "delete_*"
    verdict: deny
`;

function policyErrorOf(run: () => unknown): PolicyError {
  try {
    run();
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error('expected a PolicyError');
}

async function policyErrorOfAsync(run: () => Promise<unknown>): Promise<PolicyError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error('expected a PolicyError');
}

describe('loadPolicy', () => {
  it('loads JSON and YAML of the same document to the same behaviour', () => {
    const fromYaml = loadPolicy(YAML_POLICY, 'yaml');
    const fromJson = loadPolicy(JSON.stringify(parseYaml(YAML_POLICY), null, 2), 'json');
    expect(fromJson.ruleIds).toEqual(fromYaml.ruleIds);
    fc.assert(
      fc.property(
        fc.constantFrom('transfer', 'refund', 'delete_repo', 'other'),
        fc.oneof(fc.record({ amount: fc.double() }), fc.jsonValue()),
        (tool, args) => {
          expect(fromJson.verdictFor(policyInput(tool, args))).toEqual(fromYaml.verdictFor(policyInput(tool, args)));
        },
      ),
      { numRuns: 500 },
    );
    expect(fromYaml.verdictFor(policyInput('refund'))).toMatchObject({
      kind: 'approve',
      approval: { eligible: { roles: ['finance'] } },
    });
  });

  it('rejects YAML duplicate keys with the path', () => {
    const error = policyErrorOf(() => loadPolicy('version: 1\nrules:\n  - tool: a\n    verdict: allow\n    verdict: deny\n', 'yaml'));
    expect(error.code).toBe('invalid_policy');
    expect(error.problems).toEqual(['rules[0].verdict: duplicate key (line 5, column 5)']);
    expect(error.message).toContain('rules[0].verdict: duplicate key');
    // Keys equal only after YAML resolves them are duplicates too.
    expect(policyErrorOf(() => loadPolicy('version: 1\n"version": 1\nrules: []\n', 'yaml')).problems).toEqual([
      'version: duplicate key (line 2, column 1)',
    ]);
  });

  it('rejects JSON duplicate keys with the path', () => {
    const text = '{"version":1,"rules":[{"tool":"a","verdict":"deny","verdict":"allow"}]}';
    const error = policyErrorOf(() => loadPolicy(text, 'json'));
    expect(error.code).toBe('invalid_policy');
    expect(error.problems).toEqual(['rules[0].verdict: duplicate key (line 1, column 52)']);
  });

  it('reports schema problems from text with their paths', () => {
    const error = policyErrorOf(() => loadPolicy('version: 1\nrules:\n  - tool: a\n    verdict: maybe\n', 'yaml'));
    expect(error.problems).toEqual(['rules[0].verdict: expected "allow" | "approve" | "deny"']);
  });

  it('rejects tags, merge keys, several documents and syntax errors in YAML', () => {
    const problems = (text: string) => policyErrorOf(() => loadPolicy(text, 'yaml')).problems.join('\n');
    expect(problems('version: 1\nrules: !!binary aGVsbG8=\n')).toMatch(/Unresolved tag/);
    expect(problems('version: !custom 1\nrules: []\n')).toMatch(/Unresolved tag: !custom/);
    expect(problems('base: &b { version: 1 }\n<<: *b\nrules: []\n')).toMatch(/unknown key/);
    expect(problems('version: 1\nrules: []\n---\nversion: 1\n')).toMatch(/expected exactly one YAML document, found 2/);
    expect(problems('version: 1\nrules: [\n')).toMatch(/^\(yaml\) line \d+, column \d+: /);
    expect(problems('? [a]\n: 1\nversion: 1\nrules: []\n')).toMatch(/keys must be strings/);
  });

  it('bounds alias expansion (billion laughs) and rejects circular aliases', () => {
    const laughs = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...'bcdefghi'.split('').map((name, i) => {
        const prev = 'abcdefghi'[i];
        return `${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`;
      }),
      'version: 1',
      'rules: []',
    ].join('\n');
    expect(policyErrorOf(() => loadPolicy(laughs, 'yaml')).problems.join('\n')).toMatch(/alias/i);
    expect(
      policyErrorOf(() => loadPolicy('version: 1\nrules:\n  - &r\n    tool: a\n    verdict: allow\n    when: *r\n', 'yaml'))
        .problems,
    ).not.toHaveLength(0);
  });

  it('rejects non-finite numbers in either format', () => {
    const yaml = 'version: 1\nrules:\n  - tool: a\n    verdict: allow\n    when: { type: number, maximum: .inf }\n';
    expect(policyErrorOf(() => loadPolicy(yaml, 'yaml')).problems).toEqual([
      'rules[0].when.maximum: numbers must be finite',
    ]);
    const json = '{"version":1,"rules":[{"tool":"a","verdict":"allow","when":{"type":"number","maximum":1e400}}]}';
    expect(policyErrorOf(() => loadPolicy(json, 'json')).problems).toEqual([
      'rules[0].when.maximum: numbers must be finite',
    ]);
  });

  it('rejects an unsupported format and non-string text', () => {
    expect(policyErrorOf(() => loadPolicy('{}', 'toml' as 'json')).code).toBe('invalid_policy');
    expect(policyErrorOf(() => loadPolicy(undefined as unknown as string, 'json')).code).toBe('invalid_policy');
    expect(policyErrorOf(() => loadPolicy('', 'json')).problems[0]).toMatch(/^\(json\): /);
    expect(policyErrorOf(() => loadPolicy('# only a comment\n', 'yaml')).problems).toEqual([
      '(yaml): expected exactly one YAML document, found 0',
    ]);
  });
});

describe('loadPolicyFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'countersign-policy-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('picks the format from the extension', async () => {
    const json = JSON.stringify(parseYaml(YAML_POLICY));
    await writeFile(join(dir, 'p.json'), json);
    await writeFile(join(dir, 'p.yaml'), YAML_POLICY);
    await writeFile(join(dir, 'p.YML'), `\uFEFF${YAML_POLICY}`);
    // YAML text in a .json file must be read as JSON, and so fail.
    await writeFile(join(dir, 'yaml-in.json'), YAML_POLICY);
    for (const name of ['p.json', 'p.yaml', 'p.YML']) {
      const policy = await loadPolicyFile(join(dir, name));
      expect(policy.verdictFor(policyInput('transfer', { amount: 5 }))).toEqual({ kind: 'allow', ruleId: 'small-transfers', namesTool: true });
    }
    const error = await policyErrorOfAsync(() => loadPolicyFile(join(dir, 'yaml-in.json')));
    expect(error.code).toBe('invalid_policy');
  });

  it('reports unreadable files distinctly from invalid ones', async () => {
    await writeFile(join(dir, 'p.txt'), YAML_POLICY);
    await writeFile(join(dir, 'latin1.yaml'), Buffer.from([0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x3a, 0x20, 0xe9]));
    await writeFile(join(dir, 'bad.yaml'), 'version: 1\nrules: nope\n');
    expect((await policyErrorOfAsync(() => loadPolicyFile(join(dir, 'missing.yaml')))).code).toBe('unreadable_policy');
    expect((await policyErrorOfAsync(() => loadPolicyFile(join(dir, 'p.txt')))).code).toBe('unreadable_policy');
    expect((await policyErrorOfAsync(() => loadPolicyFile(join(dir, 'latin1.yaml')))).code).toBe('unreadable_policy');
    expect((await policyErrorOfAsync(() => loadPolicyFile(dir))).code).toBe('unreadable_policy');
    const invalid = await policyErrorOfAsync(() => loadPolicyFile(join(dir, 'bad.yaml')));
    expect(invalid.code).toBe('invalid_policy');
    expect(invalid.problems).toEqual(['rules: expected array, got string']);
  });
});
