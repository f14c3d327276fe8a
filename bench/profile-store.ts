/**
 * Profiling driver (not part of `npm run bench`): the gate in this process over a SQLite
 * store, no HTTP; N clients run allowed propose + dispatch round trips, with the server's
 * time-ordered proposal ids (as bench/wal-pages.ts: the gate's default random UUIDs land
 * each insert on a random page of the primary-key index, which the server never does).
 * Prints load-independent counts per round trip: COMMITs, bytes written (wchar, /proc/self/io) and CPU.
 *   node --conditions=countersign-source bench/profile-store.ts <clients> <roundTrips> [offloop]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '@countersign/store-sqlite';
import { timeOrderedId } from '../packages/server/src/serve/time-ordered-id.ts';
import { allowedRoundTrips, allowTransferGate } from './allow-transfer-gate.ts';

const [clientsText = '1', nText = '500', mode = ''] = process.argv.slice(2);
const clients = Number(clientsText);
const n = Number(nText);
const dir = mkdtempSync(join(tmpdir(), 'cs-profile-store-'));
const store = openSqliteStore({ path: join(dir, 'p.sqlite'), syncOffLoop: mode === 'offloop' });
const gate = allowTransferGate(store, { newId: timeOrderedId });
const wchar = () => Number(/wchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
const round = (tag: string, count: number) => allowedRoundTrips(gate, clients, tag, count);
await round('warm', 200);
const c0 = store.durableCommits();
const w0 = wchar();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await round('timed', n);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  `${mode || 'full'} ${clients} clients: ${(n / (ms / 1000)).toFixed(0)} rt/s, ${((store.durableCommits() - c0) / n).toFixed(2)} commits/rt, ${((wchar() - w0) / n / 1024).toFixed(1)} KiB written/rt, CPU ${((cpu.user + cpu.system) / n).toFixed(0)} µs/rt (user ${(cpu.user / n).toFixed(0)}, sys ${(cpu.system / n).toFixed(0)}), ${(ms / n * clients).toFixed(2)} ms/rt latency`,
);
await store.close();
rmSync(dir, { recursive: true, force: true });
