/**
 * Summarizes a .cpuprofile (from bench/probes/gate-profile.ts or `node --cpu-prof`):
 *   node bench/probes/profile-summary.ts out.cpuprofile [top=40] [µs per op]
 * Prints self time by function, then the inclusive time of the functions that cover most
 * of the samples; with the measured µs per op (gate-profile prints it), each share is also
 * shown as µs per op. A sampling profile: shares of a few percent are within its noise.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const [path, topArg, usArg] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: node bench/probes/profile-summary.ts out.cpuprofile [top] [µs per op]');
const top = Number(topArg ?? 40);
const usPerOp = usArg === undefined ? undefined : Number(usArg);
const profile = JSON.parse(readFileSync(path, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const hits = new Map<number, number>();
for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
const total = profile.samples.length;

const nameOf = (n: ProfileNode) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '').replace(/.*\/(packages|node_modules|bench)\//, '$1/');
  return `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, count] of hits) {
  self.set(nameOf(byId.get(id)!), (self.get(nameOf(byId.get(id)!)) ?? 0) + count);
  // Each function once per sample, however often it recurs on the stack.
  const onStack = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) onStack.add(nameOf(byId.get(at)!));
  for (const name of onStack) inclusive.set(name, (inclusive.get(name) ?? 0) + count);
}

const line = (name: string, count: number) => {
  const share = (100 * count) / total;
  const us = usPerOp === undefined ? '' : ` ${((share * usPerOp) / 100).toFixed(2).padStart(6)} µs`;
  return `${share.toFixed(1).padStart(5)}%${us}  ${name}`;
};
console.log(`${total} samples\n\nself time:`);
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(name, count));
console.log('\ninclusive time:');
for (const [name, count] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(name, count));
