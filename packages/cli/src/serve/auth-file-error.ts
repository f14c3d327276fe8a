export type AuthFileErrorCode =
  /** The file is missing, unreadable, not UTF-8, or has an unknown extension. */
  | 'unreadable_auth'
  /** The file was read, and its content cannot be used. */
  | 'invalid_auth';

/** An `--auth` file that cannot be used. `problems` lists every issue, each with its path; none contains a secret. */
export class AuthFileError extends Error {
  readonly code: AuthFileErrorCode;
  readonly problems: readonly string[];

  constructor(code: AuthFileErrorCode, problems: readonly string[], options?: ErrorOptions) {
    const summary = code === 'invalid_auth' ? 'invalid auth file' : 'cannot read auth file';
    super(`${summary}:\n${problems.map((p) => `  - ${p}`).join('\n')}`, options);
    this.name = 'AuthFileError';
    this.code = code;
    this.problems = Object.freeze([...problems]);
  }
}
