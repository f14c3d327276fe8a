export type CanonicalErrorCode =
  | 'invalid_json'
  | 'duplicate_key'
  | 'unsafe_integer'
  | 'lossy_number'
  | 'lone_surrogate'
  | 'non_finite'
  | 'forbidden_key'
  | 'too_deep'
  | 'too_large'
  | 'unsupported_type'
  | 'cycle';

/**
 * Arguments that cannot be canonicalized losslessly (invariant 7). `path` is an
 * RFC 6901 JSON Pointer to the offending value or key (`''` is the whole input,
 * `/a/0/b` a nested one), or `undefined` when the location is not known
 * (e.g. malformed JSON text, input over the size limit).
 */
export class CanonicalizationError extends Error {
  readonly code: CanonicalErrorCode;
  readonly path: string | undefined;

  constructor(code: CanonicalErrorCode, message: string, path?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CanonicalizationError';
    this.code = code;
    this.path = path;
  }
}
