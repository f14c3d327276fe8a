export type ServeErrorCode =
  /** The master secret, key file or credentials cannot be used. */
  | 'invalid_config'
  /** The key file or store cannot be read or created. */
  | 'io_error'
  /** The port is taken or the address cannot be bound. */
  | 'listen_failed';

/** Why the approval service could not start. */
export class ServeError extends Error {
  readonly code: ServeErrorCode;
  constructor(code: ServeErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ServeError';
    this.code = code;
  }
}
