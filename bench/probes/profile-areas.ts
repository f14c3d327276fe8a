/**
 * Summarizes a server's .cpuprofile by area (HTTP framework, body parsing, schema validation,
 * canonicalization, hashing, audit records, the store's driver, JSON, logging, GC…), self and
 * inclusive: `node bench/probes/profile-areas.ts out.cpuprofile [µs per round trip]`.
 * Take the profile with `BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=DIR"` and
 * bench/probes/profile-http.ts (one flow) or `npm run bench -- http <store>`.
 *
 * Self time goes to the area of the sample's own frame; a native frame (no script URL:
 * node:sqlite's run/get, crypto's hash, JSON.parse) goes by its name when that names the
 * work (JSON, hashing), else to the area of the nearest caller that has one (node:sqlite's
 * `get` under the SQLite store is the driver). Inclusive: the samples with the area anywhere
 * on the stack (an area nested in itself counts once).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

const [path, usArg] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: node bench/probes/profile-areas.ts out.cpuprofile [µs per round trip]');
const usPerRt = usArg === undefined ? undefined : Number(usArg);
const profile = JSON.parse(readFileSync(path, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };

// First match wins: [area, test on the script URL].
const BY_URL: ReadonlyArray<[string, RegExp]> = [
  ['HTTP framework (hono, node-server adapter)', /node_modules\/(hono|@hono)\//],
  ['schema validation (zod)', /node_modules\/zod\//],
  ['Postgres driver (pg)', /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-[a-z]+|pgpass)\//],
  ['logging (pino)', /node_modules\/pino/],
  ['other dependencies', /node_modules\//],
  ['server: body reading (read-json)', /packages\/server\/src\/http\/read-json/],
  ['server: auth, logging, headers, other middleware', /packages\/server\/src\/(auth|ops|http)\//],
  ['server: routes', /packages\/server\/src\//],
  ['canonicalization + strict parse', /packages\/core\/src\/canonical\//],
  ['audit record building (chain)', /packages\/core\/src\/audit\//],
  ['policy', /packages\/core\/src\/policy\//],
  ['gate: propose', /packages\/core\/src\/gate\/propose\//],
  ['gate: authorize/complete/dispatch', /packages\/core\/src\/gate\/execute\//],
  ['gate: other', /packages\/core\/src\/gate\//],
  ['core: ledger/store-kit/events/digest', /packages\/core\/src\//],
  ['SQLite store (ours)', /packages\/store-sqlite\//],
  ['Postgres store (ours)', /packages\/store-postgres\//],
  ['bench harness', /\/bench\//],
  ['Node http/net/streams', /^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net|js_stream))/],
  ['Node async/timers/events', /^node:(internal\/(process\/task_queues|timers|async_hooks|event_target)|events|timers)/],
  ['Node internals (other)', /^node:/],
];

/** Natives that name the work themselves, whatever called them. */
function nativeArea(name: string): string | undefined {
  if (name === 'parse' || name === 'stringify') return 'JSON.parse / JSON.stringify (native)';
  if (name === 'hash' || name === 'digest' || name === 'update' || name === 'createHash' || name === 'Hash' || name === 'Hmac') return 'hashing/HMAC (native crypto)';
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)' || name === '(idle)') return `${name}`;
  return undefined;
}

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function urlArea(node: ProfileNode): string | undefined {
  const url = node.callFrame.url.replace(/^file:\/\//, '');
  if (url === '') return undefined;
  for (const [area, test] of BY_URL) if (test.test(url)) return area;
  return 'other scripts';
}

function selfArea(id: number): string {
  const node = byId.get(id)!;
  const named = nativeArea(node.callFrame.functionName);
  if (named !== undefined) return named;
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const area = urlArea(byId.get(at)!);
    if (area === undefined) continue;
    // A native called from our store's code is the driver's work.
    if (at !== id && area === 'SQLite store (ours)') return 'node:sqlite (native statements)';
    return area;
  }
  return `native: ${node.callFrame.functionName || '(anonymous)'}`;
}

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const id of profile.samples) {
  const area = selfArea(id);
  self.set(area, (self.get(area) ?? 0) + 1);
  const onStack = new Set<string>([area]);
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const a = urlArea(byId.get(at)!);
    if (a !== undefined) onStack.add(a);
  }
  for (const a of onStack) inclusive.set(a, (inclusive.get(a) ?? 0) + 1);
}

const total = profile.samples.length;
const line = (name: string, count: number) => {
  const share = (100 * count) / total;
  const us = usPerRt === undefined ? '' : ` ${((share * usPerRt) / 100).toFixed(0).padStart(5)} µs/rt`;
  return `${share.toFixed(1).padStart(5)}%${us}  ${name}`;
};
console.log(`${total} samples\n\nself time by area:`);
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1])) console.log(line(name, count));
console.log('\ninclusive time by area:');
for (const [name, count] of [...inclusive].sort((a, b) => b[1] - a[1])) console.log(line(name, count));
