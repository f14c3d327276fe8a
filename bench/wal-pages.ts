/**
 * Profiling driver (not part of `npm run bench`): which B-trees each durable SQLite commit
 * writes. Runs allowed propose + dispatch round trips at N clients on the gate in this
 * process (the server's time-ordered ids), with the WAL truncated just before the timed
 * round trips, then maps every WAL frame to its table or index (dbstat). Frames are what a
 * commit writes and fsyncs (one 4 KiB page + header each); fewer frames, cheaper commits.
 *   node --conditions=countersign-source bench/wal-pages.ts <clients> <roundTrips>
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Gate, type ToolRegistry } from '@countersign/core/gate';
import { loadPolicy } from '@countersign/core/policy';
import { hmacKey, Keyring } from '@countersign/core/token';
import { openSqliteStore } from '@countersign/store-sqlite';
import { timeOrderedId } from '../packages/server/src/serve/time-ordered-id.ts';
import { ARGUMENT_CASES } from './arguments.ts';
import { runWorkers } from './harness.ts';

const [clientsText = '1', nText = '50'] = process.argv.slice(2);
const clients = Number(clientsText);
const n = Number(nText);
const dir = mkdtempSync(join(tmpdir(), 'cs-wal-pages-'));
const path = join(dir, 'p.sqlite');
const store = openSqliteStore({ path });
const tools: ToolRegistry = { transfer: { execute: () => ({ ok: true }), definition: { name: 'transfer', description: 'Move money', inputSchema: { type: 'object' } } } };
const gate = new Gate({
  ledger: store.ledger,
  audit: store.audit,
  definitions: store.definitions,
  policy: loadPolicy('version: 1\nrules:\n  - { id: allow, tool: transfer, verdict: allow }\n', 'yaml'),
  keyring: new Keyring([hmacKey('k1', randomBytes(32))]),
  tools,
  newId: timeOrderedId,
});
const args = JSON.stringify(ARGUMENT_CASES[0]!.args);
async function round(tag: string, count: number): Promise<void> {
  await runWorkers(clients, async (w) => {
    for (let i = w; i < count; i += clients) {
      const p = await gate.propose({ runId: `${tag}-${w}`, sessionId: 's', principal: 'user:bench', callId: `c${i}`, toolName: 'transfer', arguments: args });
      if (p.status !== 'allowed') throw new Error(JSON.stringify(p));
      const d = await gate.dispatch({ proposalId: p.proposalId });
      if (d.status !== 'executed') throw new Error(JSON.stringify(d));
    }
  });
}
// A table of some size first, then an empty WAL: what follows is the timed round trips alone.
await round('warm', 3000);
const side = new DatabaseSync(path);
side.exec('PRAGMA wal_checkpoint(TRUNCATE)');
const commitsBefore = store.durableCommits();
await round('timed', n);
const commits = store.durableCommits() - commitsBefore;
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
