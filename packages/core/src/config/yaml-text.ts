import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import { formatPath } from './format-path.ts';
import type { TextParseResult } from './parse-result.ts';
import { describeYamlErrors } from './yaml-problem.ts';

/** Anchors may be reused a little (e.g. a shared approver list); beyond this it looks like an expansion attack. */
export const MAX_YAML_ALIASES = 32;

export interface StrictYamlOptions {
  /** Names the format in problem messages, e.g. `(yaml) line 3, column 1: …`. Default "yaml". */
  label?: string | undefined;
  /** Alias uses allowed when converting to data. Default MAX_YAML_ALIASES. */
  maxAliasCount?: number | undefined;
}

/**
 * Parses a YAML configuration document strictly, as plain JSON data: YAML 1.2 core
 * schema only, no custom or YAML 1.1 tags (`!!binary`, `!foo` are errors, not strings),
 * no `<<` merge keys, string keys only, one document, duplicate keys rejected with
 * their path, alias expansion bounded (billion laughs), and any warning treated as an
 * error. JSON is YAML, so this also finds duplicate keys JSON.parse would drop silently.
 */
export function parseStrictYaml(text: string, options: StrictYamlOptions = {}): TextParseResult {
  const label = options.label ?? 'yaml';
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, {
    version: '1.2',
    schema: 'core',
    resolveKnownTags: false,
    merge: false,
    stringKeys: true,
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
    // Not 'silent': that would also drop yaml's own error for a second document.
    logLevel: 'error',
    lineCounter,
  });
  // A second document would be silently ignored by a single-document read.
  const doc = Array.isArray(docs) && docs.length === 1 ? docs[0] : undefined;
  if (doc === undefined) {
    const count = Array.isArray(docs) ? docs.length : 0;
    return { ok: false, problems: [`(${label}): expected exactly one YAML document, found ${count}`] };
  }

  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const duplicates: string[] = [];
  findDuplicateKeys(doc.contents, [], at, duplicates);
  const problems = describeYamlErrors(
    // Duplicates are reported below with their path instead of only a position.
    [...doc.errors, ...doc.warnings].filter((e) => !(e.code === 'DUPLICATE_KEY' && duplicates.length > 0)),
    lineCounter,
  ).map((problem) => `(${label}) ${problem}`);
  problems.push(...duplicates);
  if (problems.length > 0) return { ok: false, problems };

  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: options.maxAliasCount ?? MAX_YAML_ALIASES }) };
  } catch (error) {
    return { ok: false, problems: [`(${label}): ${error instanceof Error ? error.message : String(error)}`] };
  }
}

function findDuplicateKeys(node: unknown, path: (string | number)[], at: (offset: number) => string, out: string[]) {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      // With `stringKeys` every key is a string scalar; anything else is already a parse error.
      if (!isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      if (seen.has(key)) out.push(`${formatPath([...path, key])}: duplicate key (${at(pair.key.range?.[0] ?? 0)})`);
      seen.add(key);
      findDuplicateKeys(pair.value, [...path, key], at, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      findDuplicateKeys(item, [...path, i], at, out);
    });
  }
}
