/**
 * Profiling driver (not part of `npm run bench`): which B-trees each durable SQLite commit
 * writes. Runs allowed propose + dispatch round trips at N clients on the gate in this
 * process (the server's time-ordered ids), with the WAL truncated just before the timed
 * round trips, then maps every WAL frame to its table or index (dbstat). Frames are what a
 * commit writes and fsyncs (one 4 KiB page + header each); fewer frames, cheaper commits.
 *   node --conditions=countersign-source bench/wal-pages.ts <clients> <roundTrips>
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openSqliteStore } from '@countersign/store-sqlite';
import { timeOrderedId } from '../packages/server/src/serve/time-ordered-id.ts';
import { allowedRoundTrips, allowTransferGate } from './allow-transfer-gate.ts';

const [clientsText = '1', nText = '50'] = process.argv.slice(2);
const clients = Number(clientsText);
const n = Number(nText);
const dir = mkdtempSync(join(tmpdir(), 'cs-wal-pages-'));
const path = join(dir, 'p.sqlite');
const store = openSqliteStore({ path });
const gate = allowTransferGate(store, { newId: timeOrderedId });
const round = (tag: string, count: number) => allowedRoundTrips(gate, clients, tag, count);
// A table of some size first, then an empty WAL: what follows is the timed round trips alone.
await round('warm', 3000);
const side = new DatabaseSync(path);
side.exec('PRAGMA wal_checkpoint(TRUNCATE)');
// A read transaction pinned at the empty WAL: no checkpoint (the store's background one
// included) can then rewind the WAL during the timed round trips, so every frame they
// write is still in it when counted (otherwise only those since the last rewind are).
side.exec('BEGIN');
side.prepare('SELECT count(*) FROM sqlite_schema').get();
const commitsBefore = store.durableCommits();
await round('timed', n);
const commits = store.durableCommits() - commitsBefore;
side.exec('COMMIT');
const wal = readFileSync(`${path}-wal`);
const pageSize = wal.readUInt32BE(8);
const names = new Map<number, string>();
for (const row of side.prepare('SELECT name, pageno FROM dbstat').all()) names.set(Number(row.pageno), String(row.name));
const byTree = new Map<string, number>();
let frames = 0;
for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
  const tree = names.get(wal.readUInt32BE(offset)) ?? '(freed page)';
  byTree.set(tree, (byTree.get(tree) ?? 0) + 1);
  frames++;
}
console.log(`${clients} client(s), ${n} round trips: ${commits} commits, ${(frames / n).toFixed(2)} WAL frames per round trip, ${(frames / commits).toFixed(1)} per commit`);
for (const [tree, count] of [...byTree].sort((a, b) => b[1] - a[1])) console.log(`  ${tree.padEnd(32)} ${(count / n).toFixed(2)} frames/rt`);
side.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
