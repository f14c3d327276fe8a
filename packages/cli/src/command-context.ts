import { isAbsolute, resolve } from 'node:path';
import type { CliIo } from './cli-io.ts';

/** What every command receives: the I/O to use and a place to leave its exit code. */
export interface CommandContext {
  readonly io: CliIo;
  /** A path from a flag, resolved against the CLI's working directory. */
  resolvePath(path: string): string;
  setExitCode(code: number): void;
}

export function createCommandContext(io: CliIo, onExit: (code: number) => void): CommandContext {
  return {
    io,
    resolvePath: (path) => (isAbsolute(path) ? path : resolve(io.cwd, path)),
    setExitCode: onExit,
  };
}
