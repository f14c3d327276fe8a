import { serializeCanonical } from '../canonical/serialize.ts';
import { sha256Hex } from '../digest.ts';

/** A tool's definition as the model is shown it; pinned by digest (invariant 9). */
export interface ToolDefinition {
  name: string;
  description?: string | undefined;
  inputSchema?: Record<string, unknown> | undefined;
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

/** SHA-256 (hex) of the canonical form of name, description, input schema and annotations. */
export function definitionDigest(definition: ToolDefinition): string {
  const pinned: Record<string, unknown> = { name: definition.name };
  if (definition.description !== undefined) pinned.description = definition.description;
  if (definition.inputSchema !== undefined) pinned.inputSchema = definition.inputSchema;
  if (definition.annotations !== undefined) pinned.annotations = definition.annotations;
  return sha256Hex(serializeCanonical(pinned));
}

