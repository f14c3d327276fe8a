#!/usr/bin/env node
import { runCli } from './run-cli.ts';

// The one place that touches process state: signals become an abort for `serve`,
// and the exit code is set (not forced) so stdout is flushed before Node exits.
const stop = new AbortController();
let signals = 0;
const onSignal = () => {
  signals += 1;
  // A second Ctrl-C means "now": do not wait for connections to drain.
  if (signals > 1) process.exit(130);
  stop.abort();
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  // A getter: touching process.stdin opens it, which only `token inspect -` needs.
  get stdin() {
    return process.stdin;
  },
  signal: stop.signal,
});
process.off('SIGINT', onSignal);
process.off('SIGTERM', onSignal);
process.exitCode = code;
