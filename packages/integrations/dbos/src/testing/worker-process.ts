// Test side of the crash tests: spawns crash-worker.ts and reads its JSON lines.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { withCompileCache } from '@countersign/core/testing/children';

const WORKER = join(import.meta.dirname, 'crash-worker.ts');

export interface WorkerLine {
  at: string;
  [key: string]: unknown;
}

export interface WorkerProcess {
  readonly child: ChildProcess;
  /** The next line with this `at` (already printed ones count), or a rejection with the worker's stderr. */
  waitFor(at: string, timeoutMs?: number): Promise<WorkerLine>;
  /** SIGKILL: no shutdown hook, no flush, like a crashed host. */
  kill(): Promise<void>;
  readonly exited: Promise<number | null>;
}

export function startWorker(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--conditions=countersign-source', '--no-deprecation', WORKER], {
    env: withCompileCache({ ...process.env, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: WorkerLine[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      lines.push(JSON.parse(line) as WorkerLine);
    } catch {
      return; // a library's own output
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  exited.then(() => {
    for (const wake of waiters) wake();
  });
  let seen = 0;
  return {
    child,
    exited,
    waitFor(at, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`worker printed no "${at}" within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
        const check = () => {
          const index = lines.findIndex((l, i) => i >= seen && l.at === at);
          if (index >= 0) {
            seen = index + 1;
            done(undefined, lines[index]);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            done(new Error(`worker exited (${child.exitCode ?? child.signalCode}) before "${at}"; stderr: ${stderr}`));
          }
        };
        const done = (error?: Error, line?: WorkerLine) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error !== undefined) reject(error);
          else resolve(line as WorkerLine);
        };
        waiters.add(check);
        check();
      });
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The tool's starts, from every process, in order. */
export function toolStarts(logPath: string): Array<{ pid: number; args: unknown }> {
  if (!existsSync(logPath)) return [];
  return readFileSync(logPath, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { pid: number; args: unknown });
}
