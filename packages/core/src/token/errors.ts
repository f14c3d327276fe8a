export type KeyErrorCode = 'weak_secret' | 'invalid_key' | 'no_active_key' | 'duplicate_kid' | 'unknown_key';

/** Configuration problems with keys: thrown at startup, never during verification. */
export class KeyError extends Error {
  readonly code: KeyErrorCode;
  constructor(code: KeyErrorCode, message: string) {
    super(message);
    this.name = 'KeyError';
    this.code = code;
  }
}
