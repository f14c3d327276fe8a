/** Shortest secret (token, password, proxy secret) serve accepts from an operator. */
export const MIN_SECRET_LENGTH = 16;

/**
 * Why `value` is too weak or unusable as a secret, or undefined when it is fine.
 * Printable ASCII without spaces: bearer tokens travel in a header that cannot
 * carry anything else, and one rule for every secret keeps the docs short.
 */
export function secretProblem(value: string): string | undefined {
  if (value.length < MIN_SECRET_LENGTH) return `must be at least ${MIN_SECRET_LENGTH} characters`;
  if (!/^[\x21-\x7e]+$/.test(value)) return 'must be printable ASCII without spaces';
  return undefined;
}
