import { canonicalizeArguments } from '../../canonical/canonicalize-arguments.ts';
import type { CanonicalLimits } from '../../canonical/limits.ts';
import { sha256Hex } from '../../digest.ts';

/** Limits for relayed content read as JSON: tool results are larger than arguments. */
export const RELAY_CONTENT_LIMITS: CanonicalLimits = { maxDepth: 64, maxBytes: 8 * 1024 * 1024 };

const TEXT_PART_TYPES: ReadonlySet<unknown> = new Set(['text', 'input_text', 'output_text']);

/**
 * The digests relayed content is compared by:
 * - `text`: the content as text the model reads: a string as is, or the texts of an
 *   array of text parts (`{type: 'text' | 'input_text' | 'output_text', text}`) joined
 *   with "\n", as MCP text blocks are joined for `mcp_text`;
 * - `canonical`: the RFC 8785 form of the content read as JSON: JSON text parsed
 *   strictly (duplicate keys, lone surrogates, lossy numbers refuse it), or any other
 *   value checked the same way. Compared only with JSON projections, so key order,
 *   whitespace and `\u` escapes in relayed JSON do not matter, and nothing else does.
 * `digest` is what the audit records: the text digest, else the canonical one, else
 * the digest of the content's string form (content with no JSON form matches nothing).
 */
export interface RelayedForms {
  text?: string | undefined;
  canonical?: string | undefined;
  digest: string;
}

export function relayedForms(content: unknown): RelayedForms {
  const text = relayedText(content);
  if (text !== undefined) {
    const digest = sha256Hex(text);
    return { text: digest, canonical: mayBeJsonText(text) ? canonicalDigest(text) : undefined, digest };
  }
  const canonical = canonicalDigest(content);
  return { canonical, digest: canonical ?? sha256Hex(String(content)) };
}

function relayedText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  const texts: string[] = [];
  for (const part of content) {
    if (typeof part !== 'object' || part === null) return undefined;
    const { type, text } = part as { type?: unknown; text?: unknown };
    if (!TEXT_PART_TYPES.has(type) || typeof text !== 'string') return undefined;
    texts.push(text);
  }
  return texts.join('\n');
}

/**
 * Whether `text` can be JSON at all: its first non-whitespace character starts a JSON
 * value. Most relayed text is prose; refusing it here skips a parse that would fail.
 */
function mayBeJsonText(text: string): boolean {
  const first = /[^ \t\n\r]/.exec(text)?.[0];
  return first !== undefined && '{["-0123456789tfn'.includes(first);
}

/** A string is JSON text (parsed strictly); any other value is checked as a parsed JSON value. */
function canonicalDigest(content: unknown): string | undefined {
  try {
    return canonicalizeArguments(content, { ...RELAY_CONTENT_LIMITS, requireObject: false }).digest;
  } catch {
    return undefined;
  }
}
