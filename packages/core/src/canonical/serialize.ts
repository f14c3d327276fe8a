import canonicalizeJcs from 'canonicalize';

/**
 * RFC 8785 (JCS) serialization of an already-validated JSON value.
 * Use `canonicalizeArguments` for untrusted input: this function assumes the
 * value was produced by strict intake (no duplicate keys, finite numbers,
 * well-formed strings) and only orders keys and formats numbers.
 */
export function serializeCanonical(value: unknown): string {
  const text = canonicalizeJcs(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
}
