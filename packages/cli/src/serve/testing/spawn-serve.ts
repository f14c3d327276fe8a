import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { withCompileCache } from '@countersign/core/testing/children';

const MAIN = join(import.meta.dirname, '..', '..', 'main.ts');

/** One `countersign serve --json` child process. */
export interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Every JSON event printed so far. */
  events(): Record<string, unknown>[];
  stderr(): string;
  /** Sends `signal` and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Spawns `node main.ts serve --json ...args` and resolves once it prints its
 * `listening` event. COUNTERSIGN_* variables of the test process are not inherited:
 * each child sees exactly the `env` given.
 */
export async function spawnServe(args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<ServeProcess> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('COUNTERSIGN_')));
  const child = spawn(process.execPath, ['--conditions=countersign-source', MAIN, 'serve', '--json', '--port', '0', ...args], {
    cwd: options.cwd,
    env: withCompileCache({ ...inherited, ...options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start within ${options.timeoutMs ?? 20_000} ms: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      events.push(event);
      if (event.event === 'listening') {
        clearTimeout(timer);
        resolve(event.url as string);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before listening: ${stderr}`));
    });
  });
  return {
    url,
    child,
    events: () => [...events],
    stderr: () => stderr,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
