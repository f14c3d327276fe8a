import { serializeCanonical } from '../canonical/serialize.ts';
import { sha256Hex } from '../digest.ts';

/** A tool's definition as the model is shown it; pinned by digest (invariant 9). */
export interface ToolDefinition {
  name: string;
  /** Human-readable name (MCP `title`). */
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: Record<string, unknown> | undefined;
  outputSchema?: Record<string, unknown> | undefined;
  annotations?: Record<string, unknown> | undefined;
}

export interface ToolContext {
  runId: string;
  sessionId: string;
  principal: string;
  callId: string;
  proposalId: string;
}

export interface Tool {
  /** Receives a fresh copy of the arguments read from the ledger. */
  execute(args: unknown, context: ToolContext): unknown;
  definition?: ToolDefinition | undefined;
}

export type ToolRegistry = Readonly<Record<string, Tool>>;

/**
 * SHA-256 (hex) of `definitionText`: everything an approver or the model is shown of
 * the tool. Fields that are absent stay out of the digested object, so a definition
 * without title or output schema keeps the digest it had before those fields existed.
 */
export function definitionDigest(definition: ToolDefinition): string {
  return sha256Hex(definitionText(definition));
}

/** The canonical (RFC 8785) text of the pinned fields: what the digest covers and the store keeps. */
export function definitionText(definition: ToolDefinition): string {
  return serializeCanonical(pinnedFields(definition));
}

/** Only the pinned fields, absent ones left out; anything else on the object is not part of a definition. */
export function pinnedFields(definition: ToolDefinition): ToolDefinition {
  const pinned: ToolDefinition = { name: definition.name };
  for (const key of PINNED_KEYS) if (definition[key] !== undefined) Object.assign(pinned, { [key]: definition[key] });
  return pinned;
}

const PINNED_KEYS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;

