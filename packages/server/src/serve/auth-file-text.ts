import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { formatConfigPath } from './config-path.ts';

export type AuthFileFormat = 'json' | 'yaml';
export type AuthTextResult = { ok: true; value: unknown } | { ok: false; problems: string[] };

/**
 * Turns auth file text into plain data, strictly: YAML 1.2 core schema, no custom tags,
 * no merge keys, one document, and duplicate keys rejected in both formats (JSON.parse
 * would keep the last `token` silently). JSON is checked by JSON.parse first, so its
 * syntax errors read as JSON errors.
 */
export function parseAuthText(text: string, format: AuthFileFormat): AuthTextResult {
  if (format === 'json') {
    try {
      JSON.parse(text);
    } catch (error) {
      return { ok: false, problems: [`(json): ${error instanceof Error ? error.message : String(error)}`] };
    }
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    version: '1.2',
    schema: 'core',
    resolveKnownTags: false,
    merge: false,
    stringKeys: true,
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
    logLevel: 'error',
    lineCounter,
  });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return `line ${line}, column ${col}`;
  };
  const duplicates: string[] = [];
  findDuplicateKeys(doc.contents, [], at, duplicates);
  const problems = [...doc.errors, ...doc.warnings]
    .filter((e) => e.code !== 'DUPLICATE_KEY')
    .map((e) => `(${format}) ${at(e.pos[0])}: ${e.message}`);
  problems.push(...duplicates);
  if (problems.length > 0) return { ok: false, problems };
  try {
    // No aliases needed in an auth file; a small bound stops expansion attacks.
    return { ok: true, value: doc.toJS({ maxAliasCount: 16 }) };
  } catch (error) {
    return { ok: false, problems: [`(${format}): ${error instanceof Error ? error.message : String(error)}`] };
  }
}

function findDuplicateKeys(node: unknown, path: (string | number)[], at: (offset: number) => string, out: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const key = String(pair.key.value);
      if (seen.has(key)) out.push(`${formatConfigPath([...path, key])}: duplicate key (${at(pair.key.range?.[0] ?? 0)})`);
      seen.add(key);
      findDuplicateKeys(pair.value, [...path, key], at, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      findDuplicateKeys(item, [...path, i], at, out);
    });
  }
}
