/**
 * Profiling driver (not part of `npm run bench`): SQLite store modes on stores in this
 * process, rounds interleaved so all see the same disk (on a shared machine, the only
 * fair comparison). Modes: 'inline' (WAL checkpoints inside COMMIT on the event loop,
 * SQLite's default), 'background' (checkpoints on a worker thread, the store's default),
 * 'offloop' (syncOffLoop: the fsync after COMMIT, on the thread pool for batches).
 * Allowed propose + dispatch round trips at N clients; prints per mode the wall time per
 * round trip and the distribution of COMMIT times on the loop (a COMMIT that runs an
 * inline checkpoint writes pages to the database file and fsyncs twice more; under
 * synchronous=FULL every COMMIT waits for its fsync; nothing else runs meanwhile).
 *   node --conditions=countersign-source bench/probes/sqlite-modes-ab.ts <clients> <roundTripsPerRound> <rounds> [inline,background,offloop]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSqliteStore } from '@countersign/store-sqlite';
import { allowedRoundTrips, allowTransferGate } from './allow-transfer-gate.ts';

const [clientsText = '1', nText = '1000', roundsText = '8', modesText = 'inline,background'] = process.argv.slice(2);
const clients = Number(clientsText);
const n = Number(nText);
const rounds = Number(roundsText);

// COMMIT wall times, charged to the store whose round is running.
let commitTimes: number[] = [];
const exec = DatabaseSync.prototype.exec;
DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string): void {
  const started = performance.now();
  exec.call(this, sql);
  if (sql === 'COMMIT') commitTimes.push(performance.now() - started);
};

const MODES = {
  inline: { checkpoint: 'inline' },
  background: { checkpoint: 'background' },
  offloop: { syncOffLoop: true },
} as const;
const modes = modesText.split(',') as (keyof typeof MODES)[];
for (const mode of modes) if (!(mode in MODES)) throw new Error(`unknown mode ${mode}; one of ${Object.keys(MODES).join(', ')}`);
const dir = mkdtempSync(join(tmpdir(), 'cs-modes-ab-'));
const stores = modes.map((mode) => openSqliteStore({ path: join(dir, `${mode}.sqlite`), ...MODES[mode] }));
const gates = stores.map((store) => allowTransferGate(store));
for (const gate of gates) await allowedRoundTrips(gate, clients, 'warm', 1_000);
const totals = modes.map(() => ({ commits: [] as number[], wallMs: 0 }));
for (let round = 0; round < rounds; round++) {
  // Alternate which mode goes first, so neither always follows the other's I/O.
  for (let i = 0; i < modes.length; i++) {
    const k = (round + i) % modes.length;
    commitTimes = totals[k]!.commits;
    const started = performance.now();
    await allowedRoundTrips(gates[k]!, clients, `r${round}`, n);
    totals[k]!.wallMs += performance.now() - started;
  }
}
const us = (ms: number) => (ms * 1000).toFixed(0);
for (const [k, mode] of modes.entries()) {
  const times = totals[k]!.commits.sort((a, b) => a - b);
  const at = (q: number) => us(times[Math.min(times.length - 1, Math.floor(times.length * q))]!);
  const slow = times.filter((t) => t > 1);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  console.log(
    `${mode.padEnd(10)} ${clients} clients: ${us(totals[k]!.wallMs / (n * rounds))} µs/rt; ${times.length} COMMITs p50 ${at(0.5)} p99 ${at(0.99)} p99.9 ${at(0.999)} µs; ` +
      `${slow.length} over 1 ms (${sum(slow).toFixed(0)} ms of ${sum(times).toFixed(0)} ms in COMMIT)`,
  );
}
for (const store of stores) await store.close();
rmSync(dir, { recursive: true, force: true });
