/** What a single character hides from a reader, if anything. */
export type HiddenKind = 'bidi_control' | 'invisible' | 'control' | 'space';

// Unicode properties built into JavaScript regexes, so the classes follow the
// runtime's Unicode version instead of a hand-kept list of code points.
const BIDI_CONTROL = /^\p{Bidi_Control}$/u;
const CONTROL = /^\p{Cc}$/u;
const FORMAT_OR_IGNORABLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
const UNREADABLE = /^[\p{Co}\p{Cn}\p{Cs}]$/u;
const SPACE = /^[\p{Zs}\p{Zl}\p{Zp}]$/u;
/** Render as blank but are neither Cf nor default-ignorable. */
const BLANK_LOOKING = new Set([0x2800, 0x3164, 0xffa0, 0x115f, 0x1160]);

/**
 * Classifies one code point. Tab, line feed and carriage return are controls but
 * ordinary in text; they are still escaped when shown, just never reported.
 */
export function hiddenKindOf(char: string): HiddenKind | undefined {
  const cp = char.codePointAt(0)!;
  if (cp >= 0x20 && cp < 0x7f) return undefined;
  if (BIDI_CONTROL.test(char)) return 'bidi_control';
  if (CONTROL.test(char)) return 'control';
  if (FORMAT_OR_IGNORABLE.test(char) || UNREADABLE.test(char) || BLANK_LOOKING.has(cp)) return 'invisible';
  if (SPACE.test(char)) return 'space';
  return undefined;
}

/** Controls that text routinely carries: escaped on display, not worth a warning. */
export function isOrdinaryControl(char: string): boolean {
  return char === '\t' || char === '\n' || char === '\r';
}

const SHORT_ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** The visible stand-in for a character: `\n`, `\u202E`, or `\u{E0041}` beyond the BMP. */
export function escapeOf(char: string): string {
  const short = SHORT_ESCAPES[char];
  if (short !== undefined) return short;
  // A lone surrogate is one UTF-16 unit; codePointAt gives its own value.
  const cp = char.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase();
  return cp > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/** Names for the characters attacks actually use; others are described by code point alone. */
const NAMES: Record<number, string> = {
  160: 'NO-BREAK SPACE',
  173: 'SOFT HYPHEN',
  847: 'COMBINING GRAPHEME JOINER',
  1564: 'ARABIC LETTER MARK',
  6158: 'MONGOLIAN VOWEL SEPARATOR',
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8232: 'LINE SEPARATOR',
  8233: 'PARAGRAPH SEPARATOR',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8239: 'NARROW NO-BREAK SPACE',
  8288: 'WORD JOINER',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
  10240: 'BRAILLE PATTERN BLANK',
  12288: 'IDEOGRAPHIC SPACE',
  12644: 'HANGUL FILLER',
  65279: 'ZERO WIDTH NO-BREAK SPACE',
};

/** `U+202E RIGHT-TO-LEFT OVERRIDE`: ASCII only, so a description can never hide anything itself. */
export function describeChar(char: string): string {
  const cp = char.codePointAt(0)!;
  const code = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  const name = NAMES[cp];
  if (name !== undefined) return `${code} ${name}`;
  if (cp >= 0xd800 && cp <= 0xdfff) return `${code} (lone surrogate)`;
  if (/^\p{Co}$/u.test(char)) return `${code} (private use)`;
  if (/^\p{Cn}$/u.test(char)) return `${code} (unassigned)`;
  return code;
}
