// `npm run soak` (bench/soak.ts): the lifecycle model (packages/core/src/testing/lifecycle-model/) over
// many seeds, outside `npm test`. Each history runs on its own Postgres schema with
// several gate replicas, each with its own pool, reaching the database through the
// repository's TCP proxy for tests; a restart step kills one replica and, half the time,
// resets every proxied connection before it reopens. Prints histories checked, commands,
// faults injected, restarts, concurrent batches, violations and known defects seen.
// Then `--kills` histories whose gate runs in a worker process that is SIGKILLed between two
// steps or inside one, half on SQLite files, half on Postgres schemas (through the proxy),
// the model going on from the reopened store (run-killed-lifecycle.ts).
//
//   npm run soak -- [--histories N] [--replicas N] [--steps N] [--kills N] [--seed N]
//
// Exits 1 on a violation, printing fast-check's seed and shrunk history (replay with --seed and --path).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { emptyStats, type KillableHarness, type LifecycleHarness, type LifecycleStats, runKilledLifecycleModel, runLifecycleModel } from '@countersign/core/testing';
import { openPostgresStore } from '@countersign/store-postgres';
import { openSqliteStore } from '@countersign/store-sqlite';
import { databaseReachable, dropSchema, randomSchema, startTcpProxy, TEST_PG_URL } from '@countersign/store-postgres/testing';

const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '400' },
    replicas: { type: 'string', default: '3' },
    steps: { type: 'string', default: '40' },
    kills: { type: 'string', default: '40' },
    seed: { type: 'string' },
    path: { type: 'string' },
  },
});
const histories = Number(values.histories);
const replicas = Number(values.replicas);
const maxSteps = Number(values.steps);
const kills = Number(values.kills);
const workerOf = (store: string) => fileURLToPath(new URL(`../packages/${store}/src/testing/lifecycle-worker.ts`, import.meta.url));

if (!(await databaseReachable())) {
  console.error(`soak: PostgreSQL unreachable at ${TEST_PG_URL} (set COUNTERSIGN_TEST_PG_URL)`);
  process.exit(2);
}

const target = new URL(TEST_PG_URL);
const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
const proxied = new URL(TEST_PG_URL);
proxied.hostname = '127.0.0.1';
proxied.port = String(proxy.port);

let resets = 0;
/** A fresh schema per history, every replica connecting through the proxy. */
async function harness(): Promise<LifecycleHarness> {
  const schema = randomSchema();
  let opened = 0;
  return {
    replicas,
    open: async () => {
      // Every reopen after the first round is a restart: half of them also reset every connection.
      if (opened++ >= replicas && opened % 2 === 0) {
        resets++;
        await proxy.cut('refuse');
        await proxy.restore();
      }
      const store = await openPostgresStore({ connectionString: proxied.toString(), schema, pool: { max: 3 } });
      return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
    },
    destroy: () => dropSchema(schema),
  };
}

/** A fresh SQLite file per killed history. */
async function killableSqlite(): Promise<KillableHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-soak-'));
  const path = join(dir, 'countersign.sqlite');
  const open = async () => {
    const store = openSqliteStore({ path });
    return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
  };
  return { harness: { open, destroy: async () => rmSync(dir, { recursive: true, force: true }) }, location: path };
}

/** A fresh Postgres schema per killed history, the worker and this process both through the proxy. */
async function killablePostgres(): Promise<KillableHarness> {
  const schema = randomSchema();
  const open = async () => {
    const store = await openPostgresStore({ connectionString: proxied.toString(), schema, pool: { max: 3 } });
    return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
  };
  return { harness: { open, destroy: () => dropSchema(schema) }, location: JSON.stringify({ url: proxied.toString(), schema }) };
}

const started = Date.now();
const stats: LifecycleStats = emptyStats();
// Progress on stderr, so a slow database shows as slow rather than as silence.
const progress = setInterval(() => console.error(`soak: ${stats.histories} histories, ${stats.commands} commands so far`), 15_000);
const half = Math.ceil(histories / 2);
let failed: unknown;
try {
  // Half the histories with store faults and restarts, half with scheduled concurrency across replicas.
  await runLifecycleModel({
    harness,
    numRuns: half,
    maxSteps,
    stats,
    steps: { faults: true, restarts: true, concurrency: false },
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
    ...(values.path === undefined ? {} : { path: values.path }),
  });
  await runLifecycleModel({
    harness,
    numRuns: histories - half,
    maxSteps,
    stats,
    steps: { faults: false, restarts: true, concurrency: true },
    ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
  });
  // Real process death: the worker's gate SIGKILLed, the store reopened here.
  const seedOption = values.seed === undefined ? {} : { seed: Number(values.seed) };
  await runKilledLifecycleModel({ harness: killableSqlite, worker: workerOf('store-sqlite'), numRuns: Math.ceil(kills / 2), maxSteps, stats, ...seedOption });
  await runKilledLifecycleModel({ harness: killablePostgres, worker: workerOf('store-postgres'), numRuns: Math.floor(kills / 2), maxSteps, stats, ...seedOption });
} catch (error) {
  failed = error;
} finally {
  clearInterval(progress);
  await proxy.close();
}

const seconds = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `soak: ${stats.histories} histories, ${stats.commands} commands, ${stats.faults} faults injected, ${stats.restarts} restarts ` +
    `(${resets} with every connection reset), ${stats.kills} gate processes SIGKILLed, ${stats.concurrentBatches} concurrent batches, ${replicas} replicas, ` +
    `${stats.violations} violations, known defects seen: ${JSON.stringify(stats.knownDefects)}, ${seconds} s`,
);
if (failed !== undefined) {
  console.error(failed instanceof Error ? `${failed.message}\n${failed.cause instanceof Error ? failed.cause.message : ''}` : failed);
  process.exit(1);
}
