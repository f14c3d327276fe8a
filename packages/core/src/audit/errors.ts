export type AuditLogErrorCode =
  /** The stored log is not a valid chain, or a line is incomplete or unreadable. */
  | 'corrupt_log'
  /** Reading or writing the backing file failed; the log refuses further appends. */
  | 'io_error'
  /** The event handed to `append`/`buildRecord` has a missing or ill-typed field. */
  | 'invalid_event'
  /** Bad options, e.g. a negative `afterSeq`. */
  | 'invalid_argument'
  /** The log was closed. */
  | 'closed';

/** Thrown by audit logs and `buildRecord`. Verification never throws: it returns a `ChainVerification`. */
export class AuditLogError extends Error {
  readonly code: AuditLogErrorCode;

  constructor(code: AuditLogErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'AuditLogError';
    this.code = code;
  }
}
