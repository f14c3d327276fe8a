export type CliErrorCode =
  /** Bad flags or arguments. */
  | 'usage'
  /** A file or store could not be read or written. */
  | 'io'
  /** Configuration that cannot work (weak secret, missing env var). */
  | 'config';

/** Exit codes shared by every command. */
export const EXIT_OK = 0;
/** The command ran and the answer is "no": invalid policy, broken chain, rejected token. */
export const EXIT_REJECTED = 1;
/** `audit verify` on a chain too young to hold its first checkpoint: not broken, run it again shortly. */
export const EXIT_NOT_YET = 3;
/** The command could not do its job: usage, I/O or configuration error. */
export const EXIT_ERROR = 2;

/** A failure the CLI reports as one readable line on stderr, with exit code 2. */
export class CliError extends Error {
  readonly code: CliErrorCode;
  constructor(code: CliErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CliError';
    this.code = code;
  }
}
