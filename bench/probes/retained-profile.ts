/**
 * Bytes a dispatch leaves live, by allocating function:
 *   node --conditions=countersign-source --expose-gc bench/probes/retained-profile.ts [200B|10KB] [ops] [top]
 * A sampling heap profile taken over one dispatch loop and read after a full GC, so only
 * objects still alive are counted: what the ledger, the audit log and the caller keep per
 * dispatch. These are what a scavenge copies (twice: into the survivor space, then into the
 * old generation) and what mark-compact walks; garbage costs neither. alloc-profile.ts's
 * "kept after a full GC" is a net figure (new records minus the older versions they
 * replaced, freed by the same GC); this one counts only what the loop allocated.
 */
import { Session } from 'node:inspector/promises';
import { ARGUMENT_CASES } from '../arguments.ts';
import { dispatchLoop } from '../gate-cases.ts';
import { bytesBySite } from './heap-sites.ts';

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

const { total, sites } = bytesBySite(profile.head);
console.log(`${arg.label} dispatch: ${(total / ops).toFixed(0)} B/op live after the loop and a full GC (sampled); by allocating function:`);
for (const [site, bytes] of sites.slice(0, top)) {
  if (bytes / ops >= 1) console.log(`${(bytes / ops).toFixed(0).padStart(7)}  ${site}`);
}
// Keeps the loop's gate reachable until the profile has been read.
if (typeof loop !== 'function') throw new Error('unreachable');
