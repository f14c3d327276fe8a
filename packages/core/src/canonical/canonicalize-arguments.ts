import { sha256Hex } from '../digest.ts';
import { CanonicalizationError } from './errors.ts';
import { type CanonicalLimits, resolveLimits } from './limits.ts';
import { parseStrictJson } from './parse-strict.ts';
import { serializeCanonical } from './serialize.ts';
import { exceedsUtf8Bytes } from './utf8-length.ts';
import { copyJsonValue } from './validate-value.ts';

/** Tool-call arguments after strict intake: what the approver sees, what is bound, what runs. */
export interface CanonicalArguments {
  /** A fresh plain-data value (never the caller's object); run the tool with this. */
  value: unknown;
  /** RFC 8785 (JCS) text of `value`. */
  canonical: string;
  /** `sha256Hex(canonical)`: the argument digest approvals bind. */
  digest: string;
}

export interface CanonicalizeOptions extends Partial<CanonicalLimits> {
  /**
   * Tool arguments are a JSON object in every framework and in MCP; anything else at
   * the top level is refused (`unsupported_type`) unless this is `false`. Default `true`.
   */
  requireObject?: boolean;
}

/**
 * Strict intake and canonicalization of tool-call arguments (invariant 7).
 * A string is raw JSON text (OpenAI-style `arguments`) and is parsed strictly with
 * `parseStrictJson`; any other input is an already-parsed value and is checked and
 * copied with `validateJsonValue`. Throws `CanonicalizationError` on anything that
 * cannot be canonicalized losslessly, including a canonical form over `maxBytes`.
 */
export function canonicalizeArguments(input: unknown, options: CanonicalizeOptions = {}): CanonicalArguments {
  const { requireObject = true, ...limitOverrides } = options;
  const limits = resolveLimits(limitOverrides);
  const checked = typeof input === 'string' ? { value: parseStrictJson(input, limits), keysInJcsOrder: false } : copyJsonValue(input, limits, true);
  const value = checked.value;
  if (requireObject && !isJsonObject(value)) {
    throw new CanonicalizationError(
      'unsupported_type',
      `tool arguments must be a JSON object at the top level, got ${describeKind(value)}`,
      '',
    );
  }
  return finish(value, limits, checked.keysInJcsOrder);
}

/**
 * Digest of any JSON value (tool results, definitions), always treated as a value:
 * a string is hashed as a JSON string, never parsed. Same checks as
 * `validateJsonValue`; returns `sha256Hex` of the JCS text.
 */
export function canonicalDigest(value: unknown, limits?: Partial<CanonicalLimits>): string {
  const resolved = resolveLimits(limits);
  const checked = copyJsonValue(value, resolved, true);
  return finish(checked.value, resolved, checked.keysInJcsOrder).digest;
}

/**
 * `keysInJcsOrder`: `value` is a copy from `copyJsonValue` whose objects hold their keys
 * in JCS order (see CheckedCopy), so the native serializer writes its JCS text, ~4× faster
 * than the general one (bench/propose-profile.ts). properties.test.ts holds the two equal.
 */
function finish(value: unknown, limits: CanonicalLimits, keysInJcsOrder: boolean): CanonicalArguments {
  const canonical = keysInJcsOrder ? JSON.stringify(value) : serializeCanonical(value);
  if (exceedsUtf8Bytes(canonical, limits.maxBytes)) {
    throw new CanonicalizationError('too_large', `canonical form larger than ${limits.maxBytes} bytes`, '');
  }
  return { value, canonical, digest: sha256Hex(canonical) };
}

function isJsonObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
