// `npm test [-- VITEST_ARGS]`: the typecheck, the lint and the Vitest suite at once, so the
// typechecker and the linter use the processor time that the tests leave idle while they
// wait on child processes, Postgres and Chromium, instead of running before them. Fails if
// any of the three fails. The tests' output streams as it comes; the typecheck's and the
// lint's come in one block each when they end; a summary and the tests' closing line end it.
// Runs on plain Node >= 22.18 (type stripping).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { closingLine } from './test/closing-line.ts';
import { runSteps, summarize } from './test/run-steps.ts';

const repo = join(import.meta.dirname, '..');
const bin = (name: string) => join(repo, 'node_modules', '.bin', name);
const tsc = join(repo, 'node_modules', 'typescript', 'bin', 'tsc');
const report = join(repo, 'test-results', 'vitest.json');
// A report left by an earlier run must not stand in for this one's.
rmSync(report, { force: true });

const results = await runSteps(
  [
    // Niceness: the tests' workers come first, so the long test run is not slowed; the
    // typecheck and the lint end well before it all the same. The compiler is TypeScript 7's
    // (named by its package: node_modules/.bin/tsc could be the TypeScript 5 the tests also
    // install), on one thread: its parallel checkers each redo part of the type work, which
    // costs processor time the tests would otherwise use (bench/NOTES.md, "CI: TypeScript 7").
    { name: 'typecheck', command: tsc, args: ['-p', 'tsconfig.json', '--singleThreaded'], output: 'buffered', niceness: 10 },
    { name: 'lint', command: bin('biome'), args: ['check', '.'], output: 'buffered', niceness: 10 },
    {
      name: 'tests',
      command: bin('vitest'),
      args: ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
      output: 'inherit',
    },
  ],
  { cwd: repo },
);

const { lines, passed } = summarize(results);
console.log(`\n${lines.join('\n')}`);
const tests = closingLine(report);
if (tests === null) console.error('no test ran');
else console.log(tests);
process.exitCode = passed && tests !== null ? 0 : 1;
