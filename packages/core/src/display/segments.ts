import { type AnalyzeOptions, type EscapeReason, analyzeString } from './analyze-string.ts';
import { describeChar, escapeOf } from './characters.ts';

/**
 * A piece of displayed text: either shown as it is, or a visible escape standing for
 * one character a reader could not see or tell apart (`\u202E`). HTML shows escapes
 * in a distinct style; plain-text outputs show the escape text itself.
 */
export type DisplaySegment =
  | { escaped: false; text: string }
  | { escaped: true; text: string; reason: EscapeReason | 'backslash'; description: string };

/**
 * A string as a reader should see it. When anything in it is escaped, a literal
 * backslash is shown as `\\` too, so the text `\u202E` typed by someone can never
 * pass for an escape in a plain-text view.
 */
export function displaySegments(text: string, options: AnalyzeOptions = {}): DisplaySegment[] {
  const { escapes } = analyzeString(text, options);
  if (escapes.size === 0) return text === '' ? [] : [{ escaped: false, text }];
  const out = new Builder();
  let index = 0;
  for (const char of text) {
    const reason = escapes.get(index);
    if (reason !== undefined) out.escape(char, reason);
    else if (char === '\\') out.push({ escaped: true, text: '\\\\', reason: 'backslash', description: 'a backslash' });
    else out.text(char);
    index += char.length;
  }
  return out.done();
}

/**
 * `value` as JSON with every suspicious character in keys and strings shown as a JSON
 * escape; the escapes are valid JSON, so the text still means the same value. When
 * nothing needs escaping, `pretty` is `JSON.stringify(value, null, 2)` and `canonical`
 * is the RFC 8785 text (keys sorted by UTF-16 code units, no whitespace).
 */
export function displayJson(value: unknown, format: 'pretty' | 'canonical' = 'pretty'): DisplaySegment[] {
  const out = new Builder();
  writeJson(out, value, format === 'pretty' ? PRETTY : CANONICAL, '');
  return out.done();
}

interface Layout {
  step: string;
  open: string;
  comma: string;
  colon: string;
  sortKeys: boolean;
}
const PRETTY: Layout = { step: '  ', open: '\n', comma: ',\n', colon: ': ', sortKeys: false };
const CANONICAL: Layout = { step: '', open: '', comma: ',', colon: ':', sortKeys: true };

/** The segments as plain text, escapes included: for terminals, logs and text boxes. */
export function segmentsToText(segments: readonly DisplaySegment[]): string {
  return segments.map((s) => s.text).join('');
}

/** A string in a plain-text view: `segmentsToText(displaySegments(text))`. */
export function displayText(text: string): string {
  return segmentsToText(displaySegments(text));
}

function writeJson(out: Builder, value: unknown, layout: Layout, pad: string): void {
  if (typeof value === 'string') {
    writeString(out, value);
    return;
  }
  const inner = pad + layout.step;
  const close = layout.open === '' ? '' : `\n${pad}`;
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.text('[]');
      return;
    }
    out.text(`[${layout.open}`);
    value.forEach((item, i) => {
      out.text(i === 0 ? inner : `${layout.comma}${inner}`);
      writeJson(out, item, layout, inner);
    });
    out.text(`${close}]`);
    return;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    // Default sort compares UTF-16 code units: RFC 8785's order.
    if (layout.sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (entries.length === 0) {
      out.text('{}');
      return;
    }
    out.text(`{${layout.open}`);
    entries.forEach(([key, item], i) => {
      out.text(i === 0 ? inner : `${layout.comma}${inner}`);
      writeString(out, key);
      out.text(layout.colon);
      writeJson(out, item, layout, inner);
    });
    out.text(`${close}}`);
    return;
  }
  // Numbers as ECMAScript prints them: RFC 8785's number form too.
  out.text(JSON.stringify(value) ?? 'null');
}

const JSON_SHORT: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function writeString(out: Builder, text: string): void {
  const { escapes } = analyzeString(text);
  out.text('"');
  let index = 0;
  for (const char of text) {
    const reason = escapes.get(index);
    const short = JSON_SHORT[char];
    // JSON's own escapes for quote, backslash, tab, LF, CR stay plain: they are how JSON reads.
    if (short !== undefined && (reason === undefined || char === '\n' || char === '\r' || char === '\t')) out.text(short);
    else if (reason !== undefined) out.escape(char, reason);
    else out.text(char);
    index += char.length;
  }
  out.text('"');
}

class Builder {
  readonly #segments: DisplaySegment[] = [];
  #text = '';

  text(text: string): void {
    this.#text += text;
  }

  escape(char: string, reason: EscapeReason): void {
    this.push({ escaped: true, text: escapeOf(char), reason, description: describeChar(char) });
  }

  push(segment: DisplaySegment): void {
    this.#flush();
    this.#segments.push(segment);
  }

  done(): DisplaySegment[] {
    this.#flush();
    return this.#segments;
  }

  #flush(): void {
    if (this.#text !== '') this.#segments.push({ escaped: false, text: this.#text });
    this.#text = '';
  }
}
