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
  0x00a0: 'NO-BREAK SPACE',
  0x00ad: 'SOFT HYPHEN',
  0x034f: 'COMBINING GRAPHEME JOINER',
  0x061c: 'ARABIC LETTER MARK',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x202f: 'NARROW NO-BREAK SPACE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x2800: 'BRAILLE PATTERN BLANK',
  0x3000: 'IDEOGRAPHIC SPACE',
  0x3164: 'HANGUL FILLER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
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
