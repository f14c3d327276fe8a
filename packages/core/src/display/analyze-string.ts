import { type HiddenKind, hiddenKindOf, isOrdinaryControl } from './characters.ts';
import { type LatinLookalike, latinLookalikes } from './confusable.ts';

/** Why one character of a string is shown as an escape. */
export type EscapeReason = HiddenKind | 'not_nfc' | 'confusable' | 'edge_space';

export interface StringAnalysis {
  /** UTF-16 offset of each character to show as an escape, and why. */
  escapes: Map<number, EscapeReason>;
  /** Hidden characters a reader should be warned about (tab, LF and CR are escaped but not listed). */
  hidden: Array<{ index: number; char: string; kind: HiddenKind }>;
  /** The string is not in NFC: it looks like its NFC form but is other code points. */
  notNfc: boolean;
  lookalikes: LatinLookalike[];
  /** UTF-16 offsets of the U+0020 spaces a string starts or ends with: ` alice` reads as `alice`. */
  edgeSpaces: number[];
}

/** A base character and the marks on it; the unit NFC composes. Leading marks form their own. */
const CLUSTER = /\P{M}\p{M}*|\p{M}+/gu;
const MARK = /^\p{M}$/u;

/**
 * `fragment`: the text is a piece of a longer one already shown whole elsewhere (a
 * line of a JSON block, a part of a diff): its leading and trailing spaces are that
 * text's inner spaces and indentation, not edge spaces of a value.
 */
export interface AnalyzeOptions {
  fragment?: boolean | undefined;
}

/**
 * The one analysis behind both the warnings and the rendering, so that whatever is
 * flagged is also what is shown escaped, and the other way round.
 */
export function analyzeString(text: string, options: AnalyzeOptions = {}): StringAnalysis {
  const escapes = new Map<number, EscapeReason>();
  const hidden: StringAnalysis['hidden'] = [];
  let index = 0;
  for (const char of text) {
    const kind = hiddenKindOf(char);
    if (kind !== undefined) {
      escapes.set(index, kind);
      if (!isOrdinaryControl(char)) hidden.push({ index, char, kind });
    }
    index += char.length;
  }
  // normalize() cannot take lone surrogates into account; they are already escaped as invisible.
  const notNfc = text.normalize('NFC') !== text;
  if (notNfc) markNotNfc(text, escapes);
  const lookalikes = latinLookalikes(text);
  for (const l of lookalikes) if (!escapes.has(l.index)) escapes.set(l.index, 'confusable');
  const edgeSpaces = options.fragment === true ? [] : edgeSpacesOf(text);
  for (const i of edgeSpaces) escapes.set(i, 'edge_space');
  return { escapes, hidden, notNfc, lookalikes, edgeSpaces };
}

/** Offsets of the leading and trailing U+0020 (other spaces are escaped wherever they are). */
function edgeSpacesOf(text: string): number[] {
  const found: number[] = [];
  let start = 0;
  while (start < text.length && text[start] === ' ') found.push(start++);
  for (let end = text.length - 1; end >= start && text[end] === ' '; end--) found.push(end);
  return found.sort((a, b) => a - b);
}

/** Escapes the marks (or, for singleton decompositions like U+212B, the characters) NFC would change. */
function markNotNfc(text: string, escapes: Map<number, EscapeReason>): void {
  let marked = false;
  for (const match of text.matchAll(CLUSTER)) {
    const cluster = match[0];
    if (cluster.normalize('NFC') === cluster) continue;
    const hasMark = [...cluster].some((c) => MARK.test(c));
    let offset = match.index;
    for (const char of cluster) {
      if ((!hasMark || MARK.test(char)) && !escapes.has(offset)) escapes.set(offset, 'not_nfc');
      offset += char.length;
    }
    marked = true;
  }
  if (marked) return;
  // Composition across clusters (Hangul jamo): escape every non-ASCII character instead.
  let offset = 0;
  for (const char of text) {
    if (char.charCodeAt(0) >= 0x80 && !escapes.has(offset)) escapes.set(offset, 'not_nfc');
    offset += char.length;
  }
}
