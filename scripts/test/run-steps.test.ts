import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closingLine } from './closing-line.ts';
import { runSteps, type Step, summarize } from './run-steps.ts';

const node = (name: string, code: string): Step => ({ name, command: process.execPath, args: ['-e', code], output: 'buffered' });

describe('npm test runs the typecheck, the lint and the tests side by side (scripts/test.ts)', () => {
  it('one failing step fails the run, and the others still run to their end and are reported', async () => {
    const printed: string[] = [];
    const results = await runSteps(
      [
        node('typecheck', "console.log('src/a.ts(1,7): error TS2322'); process.exit(2)"),
        node('lint', 'setTimeout(() => {}, 200)'),
        node('tests', "console.log('all passed')"),
      ],
      { cwd: process.cwd(), print: (text) => printed.push(text) },
    );
    const { lines, passed } = summarize(results);
    expect(passed).toBe(false);
    expect(lines).toEqual([expect.stringMatching(/^typecheck: FAILED \(exit code 2\) in /), expect.stringMatching(/^lint: passed in /), expect.stringMatching(/^tests: passed in /)]);
    // The failing step's own output is shown under its name, not lost.
    expect(printed.find((block) => block.startsWith('── typecheck: FAILED'))).toContain('error TS2322');
  });

  it('a step killed by a signal, or one that cannot start, is a failure, not a crash', async () => {
    const results = await runSteps(
      [node('killed', "process.kill(process.pid, 'SIGKILL')"), { name: 'missing', command: join(tmpdir(), 'no-such-command'), args: [], output: 'buffered' }],
      { cwd: process.cwd(), print: () => {} },
    );
    expect(results.map((r) => r.failure)).toEqual(['ended by SIGKILL', expect.stringMatching(/^could not start: .*ENOENT/)]);
    expect(summarize(results).passed).toBe(false);
  });

  it('every step passing passes the run', async () => {
    const results = await runSteps([node('a', ''), node('b', '')], { cwd: process.cwd(), print: () => {} });
    expect(summarize(results).passed).toBe(true);
  });
});

describe("the tests' closing line", () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-closing-line-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const report = (name: string, counts: object) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(counts));
    return path;
  };

  it('counts passed, failed and skipped (pending and todo) tests in the plain form CI reads', () => {
    const path = report('some.json', { numTotalTests: 7, numPassedTests: 4, numFailedTests: 1, numPendingTests: 1, numTodoTests: 1 });
    expect(closingLine(path)).toBe('tests: 4 passed, 1 failed, 2 skipped');
  });

  it('no line when no test ran or vitest wrote no report: the run cannot pass for running nothing', () => {
    expect(closingLine(report('none.json', { numTotalTests: 0, numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0 }))).toBeNull();
    expect(closingLine(join(dir, 'missing.json'))).toBeNull();
    const torn = join(dir, 'torn.json');
    writeFileSync(torn, '{"numTotalTests": 3, "numPass');
    expect(closingLine(torn)).toBeNull();
    expect(closingLine(report('other.json', { testResults: [] }))).toBeNull();
  });
});
