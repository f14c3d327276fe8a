import { isHexSha256 } from '../audit/record-shape.ts';
import { parseConfigText } from '../config/config-text.ts';
import { idProblem } from '../call-ids.ts';
import { parseToolDefinition } from './parse-definition.ts';

/** One tool to pin: its trusted digest, and the definition when the file gave it whole. */
export interface PinFileEntry {
  toolName: string;
  digest: string;
  /** Canonical definition text (hashes to `digest`), recorded so the page can show it. */
  definitionText?: string | undefined;
}

export type PinFileResult = { ok: true; entries: PinFileEntry[] } | { ok: false; reason: 'invalid_pin_file'; message: string };

/**
 * Reads a pin file (YAML or JSON, parsed strictly):
 *
 *     tools:
 *       transfer: 3f5c…            # the trusted definition digest
 *       lookup:                     # or the definition itself (its digest is computed)
 *         name: lookup
 *         description: Looks a customer up.
 *
 * A definition's `name` must be the key it is listed under.
 */
export function parsePinFile(text: string): PinFileResult {
  // YAML 1.2 is a superset of JSON, so one strict reader takes both forms.
  const parsed = parseConfigText(text, 'yaml');
  if (!parsed.ok) return invalid(parsed.problems.join('; '));
  const root = parsed.value;
  if (!isRecord(root) || !isRecord(root.tools) || Object.keys(root).some((k) => k !== 'tools')) {
    return invalid('a pin file is an object with one key, "tools", mapping tool names to digests or definitions');
  }
  const entries: PinFileEntry[] = [];
  for (const [toolName, value] of Object.entries(root.tools)) {
    // The same rule as any tool name a call carries; checked here so a bad file is refused before a store is opened.
    const badName = idProblem('tool name', toolName);
    if (badName !== undefined) return invalid(`tools[${JSON.stringify(toolName)}]: ${badName}`);
    if (typeof value === 'string') {
      if (!isHexSha256(value)) return invalid(`tools.${toolName}: a digest is 64 lower-case hex characters`);
      entries.push({ toolName, digest: value });
      continue;
    }
    const definition = parseToolDefinition(value);
    if (!definition.ok) return invalid(`tools.${toolName}: ${definition.message}`);
    if (definition.definition.name !== toolName) return invalid(`tools.${toolName}: the definition's name is ${JSON.stringify(definition.definition.name)}`);
    entries.push({ toolName, digest: definition.digest, definitionText: definition.text });
  }
  if (entries.length === 0) return invalid('the pin file lists no tools');
  return { ok: true, entries };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): PinFileResult {
  return { ok: false, reason: 'invalid_pin_file', message };
}
