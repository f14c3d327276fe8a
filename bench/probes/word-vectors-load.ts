/**
 * Cost of loading the vendored word vectors in a fresh process (the local matcher loads them on its
 * first decision). Prints numbers; asserts nothing.
 *
 *   node --conditions=countersign-source bench/probes/word-vectors-load.ts
 */
import { loadWordVectors } from '@countersign/semantic';
const before = process.memoryUsage().rss; const c = process.cpuUsage(); const t = performance.now();
const v = loadWordVectors();
const used = process.cpuUsage(c);
console.log(`word vectors load: wall ${(performance.now() - t).toFixed(1)} ms, CPU ${((used.user + used.system) / 1000).toFixed(1)} ms, ${v.count} words, ${(v.bytes / 1048576).toFixed(1)} MB file, rss +${((process.memoryUsage().rss - before) / 1048576).toFixed(1)} MB`);
