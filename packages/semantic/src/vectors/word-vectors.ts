import { readFileSync } from 'node:fs';

/** The vendored vectors, derived by scripts/derive-word-vectors.ts (attribution in data/vectors/SOURCE.md). */
export const WORD_VECTORS_FILE = new URL('../../data/vectors/word-vectors.bin', import.meta.url);

/**
 * Layout, little-endian: "CSWV", u32 format version, u32 word count, u32 dimensions, u32 byte
 * length of the word list; the words (UTF-8, one per line, most frequent first), zero-padded to
 * a multiple of 4; one f32 scale per word; one f32 hubness per word; then count × dimensions
 * int8 components. A word's vector is its components times its scale, which makes it unit
 * length, so the dot product of two words is their cosine.
 */
const MAGIC = 'CSWV';
const VERSION = 1;
const HEADER_BYTES = 20;

export class WordVectorsError extends Error {
  readonly code: 'bad_magic' | 'bad_version' | 'truncated';
  constructor(code: WordVectorsError['code'], message: string) {
    super(message);
    this.name = 'WordVectorsError';
    this.code = code;
  }
}

export interface WordVectors {
  readonly count: number;
  readonly dimensions: number;
  /** Bytes of the file held in memory. */
  readonly bytes: number;
  /** Row of a lower-case word, or -1. */
  indexOf(word: string): number;
  /** The unit vector of a row, written into `out` (length `dimensions`). */
  copyInto(row: number, out: Float32Array, at?: number): void;
  /** Cosine of two words, or undefined when either has no vector. */
  similarity(a: string, b: string): number | undefined;
  /**
   * How close a row sits to words in general: its mean cosine to its nearest neighbours among
   * the most frequent words. Generic words ("something", "thanks") are close to many words at
   * once (hubs); a similarity counts for more when neither side is one (CSLS).
   */
  hubness(row: number): number;
}

/** Neighbours averaged for hubness, among the HUB_REFERENCE most frequent words. */
export const HUB_NEIGHBOURS = 20;
export const HUB_REFERENCE = 10_000;

/**
 * Quantizes rows to int8 with one scale per row that makes each unit length, then measures each
 * row's hubness on the quantized vectors (for the derivation script; deterministic).
 */
export function encodeWordVectors(words: readonly string[], rows: readonly Float64Array[], dims: number): Uint8Array {
  const list = Buffer.from(words.join('\n'), 'utf8');
  const listEnd = HEADER_BYTES + list.length;
  const scalesAt = Math.ceil(listEnd / 4) * 4;
  const hubsAt = scalesAt + 4 * words.length;
  const componentsAt = hubsAt + 4 * words.length;
  const out = Buffer.alloc(componentsAt + dims * words.length);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(VERSION, 4);
  out.writeUInt32LE(words.length, 8);
  out.writeUInt32LE(dims, 12);
  out.writeUInt32LE(list.length, 16);
  list.copy(out, HEADER_BYTES);
  rows.forEach((row, i) => {
    const largest = row.reduce((m, x) => Math.max(m, Math.abs(x)), 0) || 1;
    let norm = 0;
    for (let d = 0; d < dims; d += 1) {
      const q = Math.round((127 * (row[d] ?? 0)) / largest);
      out.writeInt8(q, componentsAt + i * dims + d);
      norm += q * q;
    }
    out.writeFloatLE(norm === 0 ? 0 : 1 / Math.sqrt(norm), scalesAt + 4 * i);
  });
  const hubs = measureHubness(decodeWordVectors(out), Math.min(HUB_REFERENCE, words.length));
  hubs.forEach((h, i) => {
    out.writeFloatLE(h, hubsAt + 4 * i);
  });
  return out;
}

/** Mean cosine of each row to its HUB_NEIGHBOURS nearest among the first `reference` rows (itself excluded). */
function measureHubness(vectors: WordVectors, reference: number): Float32Array {
  const dims = vectors.dimensions;
  const all = new Float32Array(vectors.count * dims);
  for (let i = 0; i < vectors.count; i += 1) vectors.copyInto(i, all, i * dims);
  const hubs = new Float32Array(vectors.count);
  const best = new Float64Array(HUB_NEIGHBOURS);
  for (let i = 0; i < vectors.count; i += 1) {
    best.fill(-2);
    const at = i * dims;
    for (let j = 0; j < reference; j += 1) {
      if (j === i) continue;
      let cos = 0;
      const bt = j * dims;
      for (let d = 0; d < dims; d += 1) cos += (all[at + d] as number) * (all[bt + d] as number);
      // `best` is kept sorted, smallest first: a closer row replaces the farthest kept.
      if (cos <= (best[0] as number)) continue;
      let k = 1;
      while (k < HUB_NEIGHBOURS && (best[k] as number) < cos) {
        best[k - 1] = best[k] as number;
        k += 1;
      }
      best[k - 1] = cos;
    }
    // Fewer neighbours than HUB_NEIGHBOURS only in a tiny vocabulary (tests): average those found.
    const found = best.filter((x) => x > -2);
    hubs[i] = found.length === 0 ? 0 : found.reduce((sum, x) => sum + x, 0) / found.length;
  }
  return hubs;
}

/** Reads vectors from bytes in place: typed-array views over the buffer, nothing copied but the word list. */
export function decodeWordVectors(bytes: Uint8Array): WordVectors {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < HEADER_BYTES || Buffer.from(bytes.subarray(0, 4)).toString('latin1') !== MAGIC) throw new WordVectorsError('bad_magic', 'not a word-vectors file');
  if (view.getUint32(4, true) !== VERSION) throw new WordVectorsError('bad_version', `unsupported word-vectors format ${view.getUint32(4, true)}`);
  const count = view.getUint32(8, true);
  const dims = view.getUint32(12, true);
  const listBytes = view.getUint32(16, true);
  const scalesAt = Math.ceil((HEADER_BYTES + listBytes) / 4) * 4;
  const hubsAt = scalesAt + 4 * count;
  const componentsAt = hubsAt + 4 * count;
  if (dims === 0 || bytes.byteLength !== componentsAt + count * dims) throw new WordVectorsError('truncated', 'word-vectors file has the wrong length for its header');
  const words = Buffer.from(bytes.buffer, bytes.byteOffset + HEADER_BYTES, listBytes).toString('utf8').split('\n');
  if (words.length !== count) throw new WordVectorsError('truncated', 'word-vectors file lists the wrong number of words');
  const rows = new Map<string, number>();
  words.forEach((w, i) => {
    rows.set(w, i);
  });
  // A copy of the scales when the buffer's offset is not 4-aligned (a Buffer from a pool can start anywhere).
  const floats = (from: number) => ((bytes.byteOffset + from) % 4 === 0 ? new Float32Array(bytes.buffer, bytes.byteOffset + from, count) : new Float32Array(bytes.slice(from, from + 4 * count).buffer));
  const scales = floats(scalesAt);
  const hubs = floats(hubsAt);
  const components = new Int8Array(bytes.buffer, bytes.byteOffset + componentsAt, count * dims);
  const indexOf = (word: string) => rows.get(word) ?? -1;
  const dot = (a: number, b: number) => {
    let sum = 0;
    for (let d = 0; d < dims; d += 1) sum += (components[a * dims + d] ?? 0) * (components[b * dims + d] ?? 0);
    return sum * (scales[a] ?? 0) * (scales[b] ?? 0);
  };
  return {
    count,
    dimensions: dims,
    bytes: bytes.byteLength,
    indexOf,
    copyInto(row, out, at = 0) {
      const scale = scales[row] ?? 0;
      for (let d = 0; d < dims; d += 1) out[at + d] = (components[row * dims + d] ?? 0) * scale;
    },
    hubness: (row) => hubs[row] ?? 0,
    similarity(a, b) {
      const i = indexOf(a);
      const j = indexOf(b);
      return i < 0 || j < 0 ? undefined : dot(i, j);
    },
  };
}

let loaded: WordVectors | undefined;

/** The vendored vectors, read once per process on first use. */
export function loadWordVectors(): WordVectors {
  loaded ??= decodeWordVectors(readFileSync(WORD_VECTORS_FILE));
  return loaded;
}
