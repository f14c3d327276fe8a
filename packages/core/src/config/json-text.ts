import { formatPath } from './format-path.ts';
import type { TextParseResult } from './parse-result.ts';

/**
 * Parses JSON configuration text. `JSON.parse` silently keeps the last of two equal keys,
 * which would let a reviewer read one verdict (or token) while another is enforced, so
 * duplicates are found with a second pass over the (by then known-valid) text and
 * rejected with their path and position.
 */
export function parseStrictJsonText(text: string): TextParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [`(json): ${error instanceof Error ? error.message : String(error)}`] };
  }
  const problems = findDuplicateJsonKeys(text);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

type Frame =
  | { kind: 'object'; keys: Set<string>; key: string | undefined; expectKey: boolean }
  | { kind: 'array'; index: number };

/** Only valid JSON text may be passed in: structure is tracked, not checked. */
function findDuplicateJsonKeys(text: string): string[] {
  const problems: string[] = [];
  const stack: Frame[] = [];

  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const top = stack[stack.length - 1];
    if (ch === '"') {
      const end = endOfString(text, i);
      if (top?.kind === 'object' && top.expectKey) {
        // Decoded, so "a" and "\u0061" count as the same key.
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) {
          const parents = stack.slice(0, -1).map((f) => (f.kind === 'object' ? (f.key ?? '') : f.index));
          problems.push(`${formatPath([...parents, key])}: duplicate key (${position(text, i)})`);
        }
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (ch === '{') {
      stack.push({ kind: 'object', keys: new Set(), key: undefined, expectKey: true });
    } else if (ch === '[') {
      stack.push({ kind: 'array', index: 0 });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',' && top !== undefined) {
      if (top.kind === 'object') top.expectKey = true;
      else top.index += 1;
    }
  }
  return problems;
}

/** 1-based line and column of an offset, as the YAML reader reports them. */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`;
}

function endOfString(text: string, start: number): number {
  let j = start + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j;
}
