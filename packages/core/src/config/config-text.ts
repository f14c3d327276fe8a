import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseStrictJsonText } from './json-text.ts';
import type { TextParseResult } from './parse-result.ts';
import { parseStrictYaml } from './yaml-text.ts';

export type ConfigFormat = 'json' | 'yaml';

export interface ConfigTextOptions {
  /** Alias uses allowed in YAML. Default MAX_YAML_ALIASES. */
  maxAliasCount?: number | undefined;
}

/**
 * The one strict reader for configuration text (policy files, auth files): JSON with
 * duplicate keys refused (JSON.parse would keep the last silently), YAML 1.2 core schema
 * with no tags, no merge keys, one document, duplicates refused and aliases bounded.
 * Problems name the format and a path or position. Never throws.
 */
export function parseConfigText(text: unknown, format: ConfigFormat, options: ConfigTextOptions = {}): TextParseResult {
  if (typeof text !== 'string') return { ok: false, problems: ['(root): configuration text must be a string'] };
  if (format === 'json') return parseStrictJsonText(text);
  if (format === 'yaml') return parseStrictYaml(text, { maxAliasCount: options.maxAliasCount });
  return { ok: false, problems: [`(root): unsupported format ${JSON.stringify(format)}`] };
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, ConfigFormat>> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };

export type ConfigFileRead = { ok: true; text: string; format: ConfigFormat } | { ok: false; problem: string; cause?: unknown };

/**
 * Reads a configuration file as text; the format comes from the extension (.json, .yaml,
 * .yml). Bytes that are not UTF-8 are refused (`fatal`): mis-encoded bytes must not be
 * replaced by U+FFFD and then matched as a different name.
 */
export async function readConfigFile(path: string, what: string): Promise<ConfigFileRead> {
  const format = FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
  if (format === undefined) return { ok: false, problem: `${path}: unknown ${what} file extension (use .json, .yaml or .yml)` };
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(await readFile(path)), format };
  } catch (error) {
    return { ok: false, problem: `${path}: ${error instanceof Error ? error.message : String(error)}`, cause: error };
  }
}
