/**
 * Bytes a dispatch leaves live, by allocating function:
 *   node --conditions=countersign-source --expose-gc bench/retained-profile.ts [200B|10KB] [ops] [top]
 * A sampling heap profile taken over one dispatch loop and read after a full GC, so only
 * objects still alive are counted: what the ledger, the audit log and the caller keep per
 * dispatch. These are what a scavenge copies (twice: into the survivor space, then into the
 * old generation) and what mark-compact walks; garbage costs neither. alloc-profile.ts's
 * "kept after a full GC" is a net figure (new records minus the older versions they
 * replaced, freed by the same GC); this one counts only what the loop allocated.
 */
import { Session } from 'node:inspector/promises';
import { ARGUMENT_CASES } from './arguments.ts';
import { dispatchLoop } from './gate-cases.ts';

const label = (process.argv[2] ?? '200B').replace(/\s/g, '');
const ops = Number(process.argv[3] ?? 5000);
const top = Number(process.argv[4] ?? 15);
const arg = ARGUMENT_CASES.find((a) => a.label.replace(/\s/g, '') === label);
if (arg === undefined) throw new Error(`no argument case ${label}`);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

// One untimed loop first, so the sampled one runs optimized code.
await (await dispatchLoop(arg.args, 3000, 'warm'))();
const loop = await dispatchLoop(arg.args, ops, 'live');
const session = new Session();
session.connect();
await session.post('HeapProfiler.enable');
gc();
await session.post('HeapProfiler.startSampling', { samplingInterval: 16 });
await loop();
gc();
// `loop` (its gate, ledger and audit log) is still referenced here, so what it keeps is live.
const { profile } = await session.post('HeapProfiler.getSamplingProfile');
await session.post('HeapProfiler.stopSampling');
session.disconnect();

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}
const bySite = new Map<string, number>();
let total = 0;
const walk = (node: Node) => {
  const f = node.callFrame;
  const site = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(packages|bench|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
  bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child);
};
walk(profile.head as unknown as Node);
console.log(`${arg.label} dispatch: ${(total / ops).toFixed(0)} B/op live after the loop and a full GC (sampled); by allocating function:`);
for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  if (bytes / ops >= 1) console.log(`${(bytes / ops).toFixed(0).padStart(7)}  ${site}`);
}
// Keeps the loop's gate reachable until the profile has been read.
if (typeof loop !== 'function') throw new Error('unreachable');
