import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-policy-warn-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

writeFileSync(
  join(cwd, 'shadowed.yaml'),
  `version: 1
rules:
  - id: reads
    tool: read_*
    verdict: allow
  - id: secrets
    tool: read_secret
    verdict: deny
  - id: transfers
    tool: transferr
    verdict: approve
`,
);
writeFileSync(join(cwd, 'pins.json'), JSON.stringify({ tools: { read_file: 'a'.repeat(64), transfer: 'b'.repeat(64) } }));
// Problems in several places at once: the document's version, a rule's verdict, another rule's condition.
writeFileSync(
  join(cwd, 'many.yaml'),
  `version: 2
rules:
  - id: a
    tool: transfer
    verdict: maybe
  - id: b
    tool: read_file
    verdict: allow
    when: { type: objekt, required: amount }
`,
);

describe('countersign policy check: every problem, and rules that can never match', () => {
  it('reports every problem of a broken policy in one run', async () => {
    const run = await runCaptured(['policy', 'check', 'many.yaml', '--json'], { cwd });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).problems).toEqual([
      'version: expected 1',
      expect.stringMatching(/^rules\[0\]\.verdict: expected "allow"/),
      'rules[1].when/type: must be equal to one of the allowed values',
      'rules[1].when/required: must be array',
    ]);
  });

  it('warns about a shadowed rule (exit 0: the policy is valid)', async () => {
    const run = await runCaptured(['policy', 'check', 'shadowed.yaml'], { cwd });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/warning: rules\[1\]: rule "secrets" can never match: rule "reads" \(rules\[0\]\)/);
  });

  it('with --catalog, warns about patterns that match no catalogued tool', async () => {
    const run = await runCaptured(['policy', 'check', 'shadowed.yaml', '--catalog', 'pins.json', '--json'], { cwd });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).warnings).toEqual([
      expect.stringMatching(/^rules\[1\]: rule "secrets" can never match/),
      'rules[1]: pattern "read_secret" of rule "secrets" matches no tool in the catalogue',
      'rules[2]: pattern "transferr" of rule "transfers" matches no tool in the catalogue',
    ]);
    const bad = await runCaptured(['policy', 'check', 'shadowed.yaml', '--catalog', 'shadowed.yaml'], { cwd });
    expect(bad.code).toBe(2);
  });
});
