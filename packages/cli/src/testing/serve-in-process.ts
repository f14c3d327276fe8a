import { captureIo } from './capture-io.ts';
import { runCli } from '../run-cli.ts';

export interface InProcessServe {
  url: string;
  stdout(): string;
  stderr(): string;
  /** Aborts serve (like SIGTERM) and resolves with its exit code. */
  stop(): Promise<number>;
}

/**
 * Runs `countersign serve` inside the test process and resolves once it prints the
 * URL line; rejects with its output if it exits first.
 */
export async function serveInProcess(argv: string[], options: { cwd: string; env?: Record<string, string> }): Promise<InProcessServe> {
  const controller = new AbortController();
  const captured = captureIo({ ...options, signal: controller.signal });
  const done = runCli(['serve', '--port', '0', ...argv], captured.io);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      // The text line, or the `listening` event with --json.
      const match = /listening on (http:\/\/\S+)|"event":"listening","url":"(http:\/\/[^"]+)"/.exec(captured.stdout());
      if (match !== null) {
        clearInterval(timer);
        resolve((match[1] ?? match[2])!);
      }
    }, 10);
    void done.then((code) => {
      clearInterval(timer);
      reject(new Error(`serve exited with ${code}: ${captured.stderr()}`));
    });
  });
  return {
    url,
    stdout: captured.stdout,
    stderr: captured.stderr,
    stop: () => {
      controller.abort();
      return done;
    },
  };
}
