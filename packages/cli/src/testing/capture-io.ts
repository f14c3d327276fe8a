import { Readable } from 'node:stream';
import type { CliIo } from '../cli-io.ts';
import { runCli } from '../run-cli.ts';

export interface CapturedRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CaptureOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  signal?: AbortSignal;
}

/** CliIo that records what a command writes. `env` is exactly what is given: nothing leaks in from the test process. */
export function captureIo(options: CaptureOptions): { io: CliIo; stdout: () => string; stderr: () => string } {
  let out = '';
  let err = '';
  const io: CliIo = {
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
    env: options.env ?? {},
    cwd: options.cwd,
    stdin: options.stdin === undefined ? undefined : Readable.from([options.stdin]),
    signal: options.signal,
  };
  return { io, stdout: () => out, stderr: () => err };
}

/** Runs the CLI in-process and returns its exit code and output. */
export async function runCaptured(argv: string[], options: CaptureOptions): Promise<CapturedRun> {
  const captured = captureIo(options);
  const code = await runCli(argv, captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}
