import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLE_POLICY_YAML } from '@countersign/core/policy';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-policy-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

writeFileSync(join(cwd, 'example.yaml'), EXAMPLE_POLICY_YAML);
writeFileSync(
  join(cwd, 'small.json'),
  JSON.stringify({ version: 1, rules: [{ id: 'reads', tool: 'read_*', verdict: 'allow' }] }),
);
// Two independent problems: a bad verdict in rule 0 and an unknown key in rule 1.
writeFileSync(
  join(cwd, 'broken.yaml'),
  `version: 1
rules:
  - id: a
    tool: transfer
    verdict: maybe
  - id: b
    tool: read_file
    verdict: allow
    colour: blue
`,
);

describe('countersign policy check', () => {
  it('a valid YAML policy: exit 0 and its rules in order', async () => {
    const run = await runCaptured(['policy', 'check', 'example.yaml'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('valid, 5 rules');
    const order = ['read-only', 'small-transfers', 'large-transfers', 'no-deletes', 'deploy'].map((id) => run.stdout.indexOf(id));
    expect(order.every((at) => at > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('a valid JSON policy, --json output', async () => {
    const run = await runCaptured(['policy', 'check', join(cwd, 'small.json'), '--json'], { cwd: '/' });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: true, format: 'json', rules: ['reads'] });
  });

  it('an invalid policy: exit 1 and every problem with its path', async () => {
    const run = await runCaptured(['policy', 'check', 'broken.yaml'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('invalid policy, 2 problems');
    expect(run.stdout).toMatch(/rules\[0\]\.verdict/);
    expect(run.stdout).toMatch(/rules\[1\]\.colour/);
    const json = await runCaptured(['policy', 'check', 'broken.yaml', '--json'], { cwd });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false });
    expect(JSON.parse(json.stdout).problems).toHaveLength(2);
  });

  it('a missing file or unknown extension: exit 2 with the reason on stderr', async () => {
    const missing = await runCaptured(['policy', 'check', 'nope.yaml'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\.yaml/);
    writeFileSync(join(cwd, 'policy.txt'), 'version: 1');
    const txt = await runCaptured(['policy', 'check', 'policy.txt'], { cwd });
    expect(txt.code).toBe(2);
    expect(txt.stderr).toMatch(/extension/);
  });

  it('--tool evaluates one call against the policy', async () => {
    const big = await runCaptured(['policy', 'check', 'example.yaml', '--tool', 'transfer', '--args', '{"amount":500,"to":"bob"}'], { cwd });
    expect(big.code).toBe(0);
    expect(big.stdout).toMatch(/→ approve \(rule large-transfers\): 1 approval from roles finance, valid 600s/);
    const small = await runCaptured(['policy', 'check', 'example.yaml', '--tool', 'transfer', '--args', '{"amount":5}'], { cwd });
    expect(small.stdout).toMatch(/→ allow \(rule small-transfers\)/);
    const unknown = await runCaptured(['policy', 'check', 'example.yaml', '--tool', 'launch_missiles', '--json'], { cwd });
    expect(JSON.parse(unknown.stdout).evaluated).toEqual({
      tool: 'launch_missiles',
      verdict: { kind: 'deny', ruleId: undefined, reason: 'unclassified_tool' },
    });
  });

  it('--args that are not strict JSON: exit 2', async () => {
    const run = await runCaptured(['policy', 'check', 'example.yaml', '--tool', 'transfer', '--args', '{"amount":1,"amount":2}'], { cwd });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--args/);
  });
});

describe('countersign policy example', () => {
  it('prints the example policy, which itself checks as valid', async () => {
    const run = await runCaptured(['policy', 'example'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(EXAMPLE_POLICY_YAML);
  });
});
