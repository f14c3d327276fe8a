import { toJsonPointer, type PathSegment } from '../canonical/json-pointer.ts';
import { analyzeString } from './analyze-string.ts';
import { describeChar, type HiddenKind } from './characters.ts';

export type DisplayFindingKind = HiddenKind | 'not_nfc' | 'confusable' | 'edge_space';

/** Something in a value that a reader would not see, or would misread. */
export interface DisplayFinding {
  /** RFC 6901 pointer to the value; for `where: 'key'`, to the value under the offending key. */
  pointer: string;
  /** Whether the object key at `pointer`, or the string value there, carries it. */
  where: 'key' | 'value';
  kind: DisplayFindingKind;
  /** What was found, in ASCII only (characters by code point), so the message cannot hide anything itself. */
  detail: string;
}

export interface DisplayInspection {
  /** Empty for plain text: then there is nothing to warn about. */
  findings: DisplayFinding[];
  /** More was found than `findings` lists. */
  truncated: boolean;
}

/** Enough to make the point and locate it; a payload of thousands cannot flood the page. */
const MAX_FINDINGS = 50;
/** Characters named per finding before `and N more`. */
const MAX_CHARS_NAMED = 4;

/**
 * Walks a JSON value (parsed arguments, or a record of fields such as
 * `{ principal, toolName, arguments }`) and reports, per string and per object key,
 * bidi controls, invisible and format characters, controls, unusual spaces, text
 * not in NFC, Latin look-alikes (full-width and other compatibility forms included) and
 * leading or trailing spaces. Pointers use the raw keys: render them with
 * `displaySegments` before showing them to a person.
 */
export function inspectForDisplay(value: unknown): DisplayInspection {
  const findings: DisplayFinding[] = [];
  let truncated = false;
  const add = (finding: DisplayFinding) => {
    if (findings.length < MAX_FINDINGS) findings.push(finding);
    else truncated = true;
  };
  const walk = (node: unknown, path: PathSegment[]): void => {
    if (typeof node === 'string') {
      inspectOne(node, toJsonPointer(path), 'value', add);
      return;
    }
    if (Array.isArray(node)) {
      for (const [i, item] of node.entries()) walk(item, [...path, i]);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, item] of Object.entries(node)) {
      const child = [...path, key];
      inspectOne(key, toJsonPointer(child), 'key', add);
      walk(item, child);
    }
  };
  walk(value, []);
  return { findings, truncated };
}

/** The findings for one string alone, at pointer `""`. */
export function inspectString(text: string): DisplayFinding[] {
  const findings: DisplayFinding[] = [];
  inspectOne(text, '', 'value', (f) => findings.push(f));
  return findings;
}

function inspectOne(text: string, pointer: string, where: 'key' | 'value', add: (f: DisplayFinding) => void): void {
  const analysis = analyzeString(text);
  const byKind = new Map<HiddenKind, string[]>();
  for (const h of analysis.hidden) {
    const list = byKind.get(h.kind) ?? [];
    list.push(`${describeChar(h.char)} at ${h.index}`);
    byKind.set(h.kind, list);
  }
  for (const [kind, chars] of byKind) add({ pointer, where, kind, detail: `${LABELS[kind]}: ${named(chars)}` });
  if (analysis.notNfc) {
    const changed = [...analysis.escapes].filter(([, r]) => r === 'not_nfc').map(([i]) => `${describeChar(String.fromCodePoint(text.codePointAt(i)!))} at ${i}`);
    add({ pointer, where, kind: 'not_nfc', detail: `not in Unicode NFC: looks like its composed form but is different code points (${named(changed)})` });
  }
  if (analysis.edgeSpaces.length > 0) {
    add({ pointer, where, kind: 'edge_space', detail: `leading or trailing spaces: reads like the text without them (U+0020 at ${named(analysis.edgeSpaces.map(String))})` });
  }
  if (analysis.lookalikes.length > 0) {
    const chars = analysis.lookalikes.map((l) => `${describeChar(l.char)} (${l.script}) looks like Latin "${l.looksLike}" at ${l.index}`);
    add({ pointer, where, kind: 'confusable', detail: `characters that pass for Latin: ${named(chars)}` });
  }
}

const LABELS: Record<HiddenKind, string> = {
  bidi_control: 'bidirectional control characters reorder how the text is shown',
  invisible: 'invisible or format characters',
  control: 'control characters',
  space: 'spaces that are not U+0020',
};

function named(items: string[]): string {
  const shown = items.slice(0, MAX_CHARS_NAMED).join(', ');
  return items.length > MAX_CHARS_NAMED ? `${shown} and ${items.length - MAX_CHARS_NAMED} more` : shown;
}
