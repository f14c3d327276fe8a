import { CanonicalizationError, parseStrictJson } from '@countersign/core/canonical';

// As deep as the proxy reads request bodies.
const MAX_DEPTH = 256;

/**
 * A model's JSON read strictly (no duplicate keys, no number that loses precision, no lone
 * surrogate), for tool input that arrives as JSON rather than as text the gate parses itself.
 */
export function readStrictJson(text: string): { ok: true; value: unknown } | { ok: false; why: string } {
  try {
    return { ok: true, value: parseStrictJson(text, { maxBytes: Number.MAX_SAFE_INTEGER, maxDepth: MAX_DEPTH }) };
  } catch (error) {
    return { ok: false, why: error instanceof CanonicalizationError ? `${error.code}: ${error.message}` : String(error) };
  }
}
