import { type ChildProcess, spawn } from 'node:child_process';
import { setPriority } from 'node:os';

export interface Step {
  name: string;
  command: string;
  args: string[];
  /**
   * 'inherit' streams the step's output as it comes (one step at most, or the lines mix);
   * 'buffered' prints it in one block, under the step's name, when the step ends.
   */
  output: 'inherit' | 'buffered';
  /** Raised for a step that only fills cores the others leave idle (os.setPriority). */
  niceness?: number;
}

export interface StepResult {
  name: string;
  /** The exit code, or null when the step could not start or was ended by a signal. */
  code: number | null;
  /** Why a step that did not exit 0 failed, in words. */
  failure?: string;
  seconds: number;
}

type Print = (text: string) => void;

/**
 * Runs the steps side by side and resolves once every one has ended, each with its result.
 * A step that fails does not stop the others: one run reports every kind of failure.
 */
export async function runSteps(steps: Step[], options: { cwd: string; print?: Print }): Promise<StepResult[]> {
  const print = options.print ?? ((text) => process.stdout.write(text));
  const children = new Set<ChildProcess>();
  // A stop asked of this process (CI's time limit) reaches the steps too, instead of leaving
  // them running orphaned; each then ends and is reported as ended by the signal.
  const forward = (signal: NodeJS.Signals) => {
    for (const child of children) child.kill(signal);
  };
  process.on('SIGTERM', forward);
  try {
    return await Promise.all(steps.map((step) => runStep(step, options.cwd, print, children)));
  } finally {
    process.off('SIGTERM', forward);
  }
}

function runStep(step: Step, cwd: string, print: Print, children: Set<ChildProcess>): Promise<StepResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(step.command, step.args, { cwd, stdio: step.output === 'inherit' ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
    if (step.niceness !== undefined && child.pid !== undefined) {
      // Only a hint: a system that refuses it runs the step at the usual priority.
      try {
        setPriority(child.pid, step.niceness);
      } catch {}
    }
    let spawnError: Error | undefined;
    child.on('error', (error) => {
      spawnError = error;
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      const seconds = (performance.now() - started) / 1000;
      const failure = spawnError !== undefined ? `could not start: ${spawnError.message}` : signal !== null ? `ended by ${signal}` : code !== 0 ? `exit code ${code}` : undefined;
      if (step.output === 'buffered') {
        const text = Buffer.concat(chunks).toString('utf8');
        const header = `── ${step.name}: ${failure === undefined ? 'passed' : `FAILED (${failure})`} in ${seconds.toFixed(1)} s ──\n`;
        print(header + text + (text === '' || text.endsWith('\n') ? '' : '\n'));
      }
      resolve({ name: step.name, code: spawnError === undefined ? code : null, ...(failure === undefined ? {} : { failure }), seconds });
    });
  });
}

/** One line per step, then whether all of them passed. */
export function summarize(results: StepResult[]): { lines: string[]; passed: boolean } {
  const lines = results.map((r) => `${r.name}: ${r.failure === undefined ? 'passed' : `FAILED (${r.failure})`} in ${r.seconds.toFixed(1)} s`);
  return { lines, passed: results.every((r) => r.failure === undefined) };
}
