/**
 * The local task-tool matcher's costs: WordNet and word-vector load time and memory, catalogue indexing, and
 * per-decision latency on a 100-tool catalogue (cold: every task new, so every word is looked
 * up in WordNet for the first time; warm: the same tasks again). Prints numbers; asserts nothing.
 *
 *   node --conditions=countersign-source bench/probes/semantic-local.ts
 */
import { availableParallelism, cpus, loadavg } from 'node:os';
import { createLocalMatcher, loadCasaCatalogue, loadCasaSingleTurn, type MatchTool } from '@countersign/semantic';

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
console.log(`semantic-local bench — ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.version}, load ${loadavg()[0]!.toFixed(2)}`);

const casa = loadCasaCatalogue();
// First decision of a fresh process: WordNet and word-vector load, indexing the catalogue and the decision itself.
const before = process.memoryUsage();
let t = performance.now();
const firstCpu = process.cpuUsage();
const first = await createLocalMatcher().match({ task: 'List the open issues of acme/api', tool: casa[0]!, catalogue: casa.slice(0, 100) });
const firstMs = performance.now() - t;
const firstCpuUsed = process.cpuUsage(firstCpu);
const after = process.memoryUsage();
console.log(
  `first match, cold process (WordNet + word vectors load + 100-tool index + decision): wall ${firstMs.toFixed(1)} ms, CPU ${((firstCpuUsed.user + firstCpuUsed.system) / 1000).toFixed(1)} ms (${first.decision}); rss +${mb(after.rss - before.rss)}, external (Buffers) +${mb(after.external - before.external)}, heap +${mb(after.heapUsed - before.heapUsed)}`,
);

const records = loadCasaSingleTurn(casa);
// A 100-tool catalogue holding every tool the records request, filled up from the CASA servers.
const key = (tool: MatchTool) => `${tool.server}/${tool.name}`;
const requested = new Map(records.map((r) => [key(r.tool), r.tool]));
const catalogue: MatchTool[] = [...requested.values()];
for (const tool of casa) if (catalogue.length < 100 && !requested.has(key(tool))) catalogue.push(tool);
console.log(`catalogue: ${catalogue.length} tools (${requested.size} requested by the 200 records)`);

for (const [label, options] of [
  ['with word vectors (default)', {}],
  ['WordNet, no vectors', { vectors: false }],
  ['stems only', { wordnet: false }],
] as const) {
  const matcher = createLocalMatcher(options);
  t = performance.now();
  await matcher.match({ task: 'index the catalogue', tool: catalogue[0]!, catalogue });
  const indexMs = performance.now() - t;
  for (const pass of ['cold', 'warm', 'warm']) {
    const times: number[] = [];
    const cpu: number[] = [];
    for (const r of records) {
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      await matcher.match({ task: r.task, tool: r.tool, catalogue });
      const used = process.cpuUsage(cpuStarted);
      times.push(performance.now() - started);
      cpu.push((used.user + used.system) / 1000);
    }
    times.sort((a, b) => a - b);
    cpu.sort((a, b) => a - b);
    // Wall time includes waiting for a core on a shared machine; CPU time is this process's own work.
    console.log(
      `${label}, ${pass} pass: index ${indexMs.toFixed(1)} ms; per decision wall p50 ${pct(times, 50).toFixed(3)} / p99 ${pct(times, 99).toFixed(3)} ms; CPU p50 ${pct(cpu, 50).toFixed(3)} / p99 ${pct(cpu, 99).toFixed(3)} ms`,
    );
  }
}
console.log(`heap used at end ${mb(process.memoryUsage().heapUsed)}, rss ${mb(process.memoryUsage().rss)}`);
