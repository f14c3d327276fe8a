import { canonicalizeArguments } from '../canonical/canonicalize-arguments.ts';
import { CanonicalizationError } from '../canonical/errors.ts';
import { idProblem } from '../call-ids.ts';
import { pinnedFields, type ToolDefinition } from './tools.ts';

/** Longest definition text accepted from outside (an agent, a pin file): descriptions are shown whole to approvers. */
export const MAX_DEFINITION_BYTES = 256 * 1024;

export type ParsedDefinition =
  | { ok: true; definition: ToolDefinition; digest: string; text: string }
  | { ok: false; reason: 'invalid_definition'; message: string };

const KEYS = new Set(['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations']);

/**
 * Checks a definition that came from outside the process (HTTP, a file) and returns
 * its pinned fields, canonical text and digest. Unknown fields are refused rather than
 * dropped: a field the digest did not cover could still reach the model.
 */
export function parseToolDefinition(value: unknown): ParsedDefinition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid('a tool definition must be an object');
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!KEYS.has(key)) return invalid(`unknown definition field ${JSON.stringify(key)}`);
  const nameProblem = idProblem('name', record.name);
  if (nameProblem !== undefined) return invalid(nameProblem);
  for (const key of ['title', 'description'] as const) {
    if (record[key] !== undefined && typeof record[key] !== 'string') return invalid(`${key} must be a string`);
  }
  for (const key of ['inputSchema', 'outputSchema', 'annotations'] as const) {
    const field = record[key];
    if (field !== undefined && (typeof field !== 'object' || field === null || Array.isArray(field))) return invalid(`${key} must be an object`);
  }
  let canonical: ReturnType<typeof canonicalizeArguments>;
  try {
    canonical = canonicalizeArguments(pinnedFields(record as unknown as ToolDefinition), { maxBytes: MAX_DEFINITION_BYTES });
  } catch (error) {
    return invalid(error instanceof CanonicalizationError ? `${error.code}: ${error.message}` : String(error));
  }
  return { ok: true, definition: canonical.value as ToolDefinition, digest: canonical.digest, text: canonical.canonical };
}

function invalid(message: string): ParsedDefinition {
  return { ok: false, reason: 'invalid_definition', message };
}
