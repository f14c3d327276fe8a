/**
 * Resource limits for argument intake. Checked before or while reading input, so
 * an oversized or deeply nested payload is refused without parsing it in full.
 */
export interface CanonicalLimits {
  /**
   * Deepest allowed nesting of arrays and objects. The top-level container is at
   * depth 1, so `{"a":[1]}` has depth 2. Scalars do not add depth.
   */
  maxDepth: number;
  /**
   * Largest allowed size in UTF-8 bytes: of the input text before parsing, and of
   * the canonical output in every case (for already-parsed values that is the only
   * measure; for text it also catches numbers such as `1e15` that grow when written
   * canonically).
   */
  maxBytes: number;
}

export const DEFAULT_LIMITS: Readonly<CanonicalLimits> = Object.freeze({
  maxDepth: 64,
  maxBytes: 1_048_576,
});

/** Fills in defaults and rejects nonsensical limits (a programming error, hence TypeError). */
export function resolveLimits(limits?: Partial<CanonicalLimits>): CanonicalLimits {
  const maxDepth = limits?.maxDepth ?? DEFAULT_LIMITS.maxDepth;
  const maxBytes = limits?.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 1) {
    throw new TypeError(`maxDepth must be a positive integer, got ${String(maxDepth)}`);
  }
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 1) {
    throw new TypeError(`maxBytes must be a positive integer, got ${String(maxBytes)}`);
  }
  return { maxDepth, maxBytes };
}
