import { parseStrictYaml } from '@countersign/core/policy';

export type AuthFileFormat = 'json' | 'yaml';
export type AuthTextResult = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * Turns auth file text into plain data, strictly (core's `parseStrictYaml`: YAML 1.2
 * core schema, no custom tags, no merge keys, one document, duplicate keys rejected in
 * both formats, since JSON.parse would keep the last `token` silently). JSON is checked
 * by JSON.parse first, so its syntax errors read as JSON errors.
 */
export function parseAuthText(text: string, format: AuthFileFormat): AuthTextResult {
  if (format === 'json') {
    try {
      JSON.parse(text);
    } catch (error) {
      return { ok: false, problems: [`(json): ${error instanceof Error ? error.message : String(error)}`] };
    }
  }
  // No aliases needed in an auth file; a small bound stops expansion attacks.
  return parseStrictYaml(text, { label: format, maxAliasCount: 16 });
}
