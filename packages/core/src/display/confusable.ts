import unhomoglyph from 'unhomoglyph';

/** One character that reads as Latin but is not ASCII: Cyrillic `а` for `a`, Greek `ο` for `o`. */
export interface LatinLookalike {
  /** UTF-16 offset in the string. */
  index: number;
  char: string;
  /** The ASCII text it is confusable with, per Unicode's confusables.txt (UTS #39), or its NFKC form. */
  looksLike: string;
  script: string;
}

const ASCII_ALNUM = /^[A-Za-z0-9]+$/;
const ASCII_WORD_CHAR = /[A-Za-z0-9]/;
/** Runs of letters, marks and digits: the unit a reader takes in at a glance. */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Armenian', 'Cherokee', 'Coptic', 'Georgian', 'Lisu', 'Canadian_Aboriginal', 'Common'] as const;
const SCRIPT_RES = SCRIPTS.map((name) => [name, new RegExp(`^\\p{Script=${name}}$`, 'u')] as const);

function scriptOf(char: string): string {
  for (const [name, re] of SCRIPT_RES) if (re.test(char)) return name.replaceAll('_', ' ');
  return 'another script';
}

/** The ASCII letters or digits a non-ASCII character is confusable with, if that is what it maps to. */
function latinSkeleton(char: string): string | undefined {
  if (char.charCodeAt(0) < 0x80) return undefined;
  const skeleton = unhomoglyph(char);
  return skeleton !== char && ASCII_ALNUM.test(skeleton) ? skeleton : undefined;
}

/**
 * The ASCII letters or digits a compatibility form stands for (NFKC): full-width `ｆ` and
 * `１`, ligatures, super- and subscripts. They are Latin letters and digits in another
 * costume, so they are reported wherever they are, even in a word of their own.
 */
function compatibilitySkeleton(char: string): string | undefined {
  if (char.charCodeAt(0) < 0x80) return undefined;
  const compatible = char.normalize('NFKC');
  return compatible !== char && ASCII_ALNUM.test(compatible) ? compatible : undefined;
}

/**
 * Characters in `text` that pass for Latin (UTS #39 confusables via `unhomoglyph`):
 * - mixed script, per word: a word with ASCII letters or digits that also holds a
 *   look-alike (`аlice`, `раypal`, `1О0`); a word wholly in another script (`Москва`)
 *   beside Latin words is ordinary text and not reported;
 * - whole-script: a string with no ASCII letters or digits at all whose every letter
 *   and digit is a look-alike (`асе`, all Cyrillic, reads as `ace`);
 * - compatibility forms anywhere (`user:ｆｕｌｌ`, `１００`): see `compatibilitySkeleton`.
 */
export function latinLookalikes(text: string): LatinLookalike[] {
  if (!ASCII_WORD_CHAR.test(text)) {
    const whole = wholeScriptLookalikes(text);
    if (whole !== undefined) return whole;
  }
  const found = new Map<number, LatinLookalike>();
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const mixed = ASCII_WORD_CHAR.test(word);
    let offset = match.index;
    for (const char of word) {
      const looksLike = (mixed ? latinSkeleton(char) : undefined) ?? compatibilitySkeleton(char);
      if (looksLike !== undefined) found.set(offset, { index: offset, char, looksLike, script: scriptOf(char) });
      offset += char.length;
    }
  }
  return [...found.values()];
}

function wholeScriptLookalikes(text: string): LatinLookalike[] | undefined {
  const found: LatinLookalike[] = [];
  let index = 0;
  for (const char of text) {
    if (/^[\p{L}\p{N}]$/u.test(char)) {
      const looksLike = latinSkeleton(char) ?? compatibilitySkeleton(char);
      if (looksLike === undefined) return undefined;
      found.push({ index, char, looksLike, script: scriptOf(char) });
    }
    index += char.length;
  }
  return found.length > 0 ? found : undefined;
}
