/** Anything text can be written to: process.stdout, a file stream, a test buffer. */
export interface TextSink {
  write(chunk: string): unknown;
}

/**
 * Everything a command may touch outside itself, passed in so commands run
 * in-process under test exactly as they do from a shell.
 */
export interface CliIo {
  stdout: TextSink;
  stderr: TextSink;
  env: Readonly<Record<string, string | undefined>>;
  /** Relative paths in flags resolve against this directory. */
  cwd: string;
  /** Read by `token inspect -`. */
  stdin?: AsyncIterable<string | Buffer> | undefined;
  /** Aborting stops a long-running command (`serve`); main.ts wires it to SIGINT/SIGTERM. */
  signal?: AbortSignal | undefined;
}

/** Writes one line to `sink`. */
export function writeLine(sink: TextSink, line = ''): void {
  sink.write(`${line}\n`);
}

/** Writes `value` as one line of JSON: the `--json` output of every command. */
export function writeJson(sink: TextSink, value: unknown): void {
  sink.write(`${JSON.stringify(value)}\n`);
}
