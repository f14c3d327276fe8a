import { flatCanonicalText } from '../../canonical/flat-canonical.ts';
import { serializeCanonical } from '../../canonical/serialize.ts';
import { sha256Hex } from '../../digest.ts';

/**
 * The forms of a raw tool result a runtime may relay to the model, by name. Each is
 * stored as a SHA-256 digest with the result at `complete`, so the check never needs
 * the raw result:
 *
 * - `mcp_text`: an MCP `CallToolResult` (an object with a `content` array): the `text`
 *   of its text blocks, joined with "\n" (how most MCP clients flatten a result to one
 *   string; clients that keep one part per block relay parts, which are joined the same way);
 * - `mcp_text_concat`: the same texts joined with "" (clients that concatenate blocks),
 *   only for two or more text blocks;
 * - `mcp_structured`: RFC 8785 JSON of the result's `structuredContent`;
 * - `mcp_content`: RFC 8785 JSON of the whole `content` array;
 * - `json`: RFC 8785 JSON of the whole result (any value, MCP results included);
 * - `string`: the result itself, when it is a string;
 * - `error`: a failed call's error message (not stored: a failed result's digest is the
 *   digest of its message).
 */
export const RELAY_PROJECTIONS = ['mcp_text', 'mcp_text_concat', 'mcp_structured', 'mcp_content', 'json', 'string', 'error'] as const;
export type RelayProjection = (typeof RELAY_PROJECTIONS)[number];

/** Projections whose bytes are canonical JSON: relayed JSON text is compared by its canonical form against these. */
export const JSON_PROJECTIONS: ReadonlySet<RelayProjection> = new Set(['mcp_structured', 'mcp_content', 'json']);

/** Name → SHA-256 (hex) of each projection a result has. */
export type ProjectionDigests = Partial<Record<RelayProjection, string>>;

/** The text of an MCP text block, or undefined for any other block. */
function textOfBlock(block: unknown): string | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const { type, text } = block as { type?: unknown; text?: unknown };
  return type === 'text' && typeof text === 'string' ? text : undefined;
}

/** Canonical JSON digest of `value`, or undefined when it has no lossless JSON form. */
function canonicalDigestOf(value: unknown): string | undefined {
  try {
    // A flat object (the commonest tool result) is written without the general serializer: same bytes.
    return sha256Hex(flatCanonicalText(value) ?? serializeCanonical(value));
  } catch {
    return undefined;
  }
}

/**
 * The projection digests of a successful tool result (see RELAY_PROJECTIONS). Computed
 * once, at `complete`, from the raw result the runtime reports. Never throws: a form
 * that cannot be computed (a value without JSON form) is left out.
 */
export function resultProjections(result: unknown): ProjectionDigests {
  const digests: ProjectionDigests = {};
  const json = canonicalDigestOf(result ?? null);
  if (json !== undefined) digests.json = json;
  if (typeof result === 'string') digests.string = sha256Hex(result);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return digests;
  const { content, structuredContent } = result as { content?: unknown; structuredContent?: unknown };
  if (!Array.isArray(content)) return digests;
  const texts = content.map(textOfBlock).filter((t) => t !== undefined);
  if (texts.length > 0) digests.mcp_text = sha256Hex(texts.join('\n'));
  if (texts.length > 1) digests.mcp_text_concat = sha256Hex(texts.join(''));
  const whole = canonicalDigestOf(content);
  if (whole !== undefined) digests.mcp_content = whole;
  if (structuredContent !== undefined) {
    const structured = canonicalDigestOf(structuredContent);
    if (structured !== undefined) digests.mcp_structured = structured;
  }
  return digests;
}

/** Why `value` is not a stored set of projection digests (a store reading it back checks this), or undefined. */
export function projectionDigestsProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'expected a JSON object';
  for (const [name, digest] of Object.entries(value)) {
    if (!(RELAY_PROJECTIONS as readonly string[]).includes(name)) return `unknown projection ${JSON.stringify(name)}`;
    if (typeof digest !== 'string' || !/^[0-9a-f]{64}$/.test(digest)) return `projection ${name}: expected a lower-case hex SHA-256`;
  }
  return undefined;
}
