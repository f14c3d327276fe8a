import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCaptured } from './testing/capture-io.ts';

const cwd = mkdtempSync(join(tmpdir(), 'countersign-cli-describe-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe('policy check and rule descriptions', () => {
  it('accepts a description, prints it with the verdict (quoted: it is one line, whatever it holds) and in --json', async () => {
    writeFileSync(
      join(cwd, 'described.yaml'),
      'version: 1\nrules:\n  - id: pay\n    tool: transfer\n    description: "Money leaves the company.\\nFinance checks it."\n    verdict: approve\n    approval: { approvers: { roles: [finance] } }\n',
    );
    const text = await runCaptured(['policy', 'check', 'described.yaml', '--tool', 'transfer'], { cwd });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('→ approve (rule pay): 1 approval from roles finance, valid 900s — "Money leaves the company.\\nFinance checks it."');
    const json = await runCaptured(['policy', 'check', 'described.yaml', '--tool', 'transfer', '--json'], { cwd });
    expect(JSON.parse(json.stdout).evaluated.verdict.description).toBe('Money leaves the company.\nFinance checks it.');
  });

  it('refuses an empty or over-long description with its path (exit 1)', async () => {
    writeFileSync(join(cwd, 'bad.json'), JSON.stringify({ version: 1, rules: [{ id: 'a', tool: 't', verdict: 'allow', description: '' }, { id: 'b', tool: 'u', verdict: 'allow', description: 'x'.repeat(501) }] }));
    const run = await runCaptured(['policy', 'check', 'bad.json'], { cwd });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/rules\[0\]\.description/);
    expect(run.stdout).toMatch(/rules\[1\]\.description/);
  });
});
