import { MemoryAuditLog, verifyChain } from '@countersign/core/audit';
import { benchConcurrentAppends, memoryChain, sampleEvent } from './audit-cases.ts';
import { benchConsumeRace } from './consume-race.ts';
import { runInterleaved } from './harness.ts';
import { printSection, type Ratio, type Row } from './report.ts';
import { median } from './stats.ts';
import { type BenchStore, openPostgresBench, openSqliteBench } from './stores.ts';

export interface StoreThroughputOptions {
  /** Concurrent clients for the SQL stores. */
  clients: number;
  rounds: number;
  approvals: { sqlite: number; postgres: number };
  appends: { sqlite: number; postgres: number };
  chainRecords: number;
}

export interface StoreThroughputResult {
  rows: Row[];
  ratios: Ratio[];
  /** Exactly-once or chain violations; any entry means a store is broken. */
  problems: string[];
}

const CONSUME = 'Part B: single-use consumption, median of rounds';
const AUDIT = 'Part B: audit log, median of rounds';

interface StoreFigures {
  consumed?: Row | undefined;
  uncontended?: Row | undefined;
  attempts?: Row | undefined;
  ceiling?: Row | undefined;
  appends?: Row | undefined;
  skipped?: string | undefined;
}

/** Issue 3: consumption races and audit appends on SQLite and PostgreSQL, chain verification in memory. */
export async function benchStores(o: StoreThroughputOptions): Promise<StoreThroughputResult> {
  const consumeRows: Row[] = [];
  const auditRows: Row[] = [];
  const problems: string[] = [];

  // CPU-only figures first, before the SQL rounds leave checkpoints and vacuum running.
  const memoryAppends = await benchMemoryAppends();
  const chainVerify = await benchChainVerify(o.chainRecords, problems);

  const sqlite = await measureStore(openSqliteBench(), 'SQLite (temp file, WAL, synchronous=FULL)', o.approvals.sqlite, o.appends.sqlite, o, problems);
  const opened = await openPostgresBench(o.clients);
  const postgres = opened.ok
    ? await measureStore(opened.store, `PostgreSQL (fresh schema, pool ${o.clients})`, o.approvals.postgres, o.appends.postgres, o, problems)
    : ({ skipped: opened.reason } satisfies StoreFigures);
  for (const [label, figures] of [
    ['SQLite', sqlite],
    ['PostgreSQL', postgres],
  ] as const) {
    if (figures.skipped !== undefined) {
      consumeRows.push({ section: CONSUME, name: `${label}: consumptions`, unit: '/s', skipped: figures.skipped });
      auditRows.push({ section: AUDIT, name: `${label}: appends`, unit: '/s', skipped: figures.skipped });
      continue;
    }
    consumeRows.push(...[figures.consumed, figures.attempts, figures.uncontended, figures.ceiling].filter((r) => r !== undefined));
    if (figures.appends !== undefined) auditRows.push(figures.appends);
  }

  auditRows.unshift(memoryAppends);
  auditRows.push(chainVerify);

  printSection(CONSUME, consumeRows);
  printNotes(consumeRows);
  printSection(AUDIT, auditRows);
  printNotes(auditRows);

  const pgSkipped = postgres.skipped;
  const ratios: Ratio[] = [
    { label: 'PostgreSQL consumptions/s', value: postgres.consumed?.value, target: 3_000, kind: 'rate', skipped: pgSkipped },
    { label: 'PostgreSQL consumptions/s, one consumer each', value: postgres.uncontended?.value, target: 3_000, kind: 'rate', skipped: pgSkipped },
    { label: 'SQLite consumptions/s', value: sqlite.consumed?.value, target: 10_000, kind: 'rate' },
    { label: 'SQLite consumptions/s, one consumer each', value: sqlite.uncontended?.value, target: 10_000, kind: 'rate' },
    { label: 'chain verification records/s', value: auditRows.at(-1)?.value, target: 200_000, kind: 'rate' },
    { label: 'PostgreSQL consume / commit ceiling', value: ratio(postgres.consumed, postgres.ceiling), kind: 'ratio', skipped: pgSkipped },
    { label: 'SQLite consume / commit ceiling', value: ratio(sqlite.consumed, sqlite.ceiling), kind: 'ratio' },
    { label: 'audit appends/s, memory', value: auditRows[0]?.value, kind: 'rate' },
    { label: 'audit appends/s, SQLite', value: sqlite.appends?.value, kind: 'rate' },
    { label: 'audit appends/s, PostgreSQL', value: postgres.appends?.value, kind: 'rate', skipped: pgSkipped },
  ];
  return { rows: [...consumeRows, ...auditRows], ratios, problems };
}

function ratio(a: Row | undefined, b: Row | undefined): number | undefined {
  return a?.value !== undefined && b?.value !== undefined ? a.value / b.value : undefined;
}

function printNotes(rows: readonly Row[]): void {
  for (const r of rows) if (r.note !== undefined) console.log(`    ${r.name}: ${r.note}`);
}

/** Consumption races, a commit ceiling and concurrent appends on one store, which is disposed afterwards. */
async function measureStore(
  store: BenchStore,
  label: string,
  approvals: number,
  appends: number,
  o: StoreThroughputOptions,
  problems: string[],
): Promise<StoreFigures> {
  try {
    const consumed: number[] = [];
    const attempts: number[] = [];
    const before = problems.length;
    const consumeCommits: number[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const race = await benchConsumeRace(store.ledger, `round${round}`, approvals, o.clients, 2, () => store.durableCommits?.());
      if (race.commits !== undefined) consumeCommits.push(race.commits / race.successes);
      consumed.push(race.consumedPerSec);
      attempts.push(race.attemptsPerSec);
      problems.push(...race.problems.map((p) => `${label}, consume round ${round + 1}: ${p}`));
    }
    const single: number[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const run = await benchConsumeRace(store.ledger, `single${round}`, approvals, o.clients, 1);
      single.push(run.consumedPerSec);
      problems.push(...run.problems.map((p) => `${label}, single-consumer round ${round + 1}: ${p}`));
    }
    const held = problems.length === before ? 'exactly-once held' : 'EXACTLY-ONCE VIOLATED';
    // Over the timed consumes only (setup excluded), per successful consume: a racing loser's commits count too.
    const commitsPerCall =
      consumeCommits.length === 0
        ? 'durable commits per call: n/a (store has no commit counter)'
        : `durable commits per consumed approval: ${median(consumeCommits).toFixed(2)}`;
    const ceiling = await store.commitCeiling(approvals, o.clients);

    const appendRates: number[] = [];
    for (let round = 0; round < o.rounds; round++) {
      const result = await benchConcurrentAppends(store.audit, appends, o.clients);
      appendRates.push(result.perSec);
      problems.push(...result.problems.map((p) => `${label}, append round ${round + 1}: ${p}`));
    }
    return {
      consumed: {
        section: CONSUME,
        name: `${label}: consumptions, ${o.clients} clients, each approval raced by 2`,
        value: median(consumed),
        unit: 'consumed/s',
        samples: consumed,
        note: `${approvals} approvals × 2 attempts per round, ${o.rounds} rounds; ${held}; ${commitsPerCall}`,
      },
      attempts: {
        section: CONSUME,
        name: `${label}: consume attempts, ${o.clients} clients`,
        value: median(attempts),
        unit: 'attempts/s',
        samples: attempts,
      },
      uncontended: {
        section: CONSUME,
        name: `${label}: consumptions, ${o.clients} clients, one consumer per approval`,
        value: median(single),
        unit: 'consumed/s',
        samples: single,
        note: `${approvals} approvals × 1 attempt per round, ${o.rounds} rounds; ${held}`,
      },
      ceiling: {
        section: CONSUME,
        name: `${label}: commit ceiling, bare single-row UPDATEs, ${label.startsWith('SQLite') ? `up to ${o.clients} per COMMIT` : `${o.clients} clients`}`,
        value: ceiling,
        unit: 'commits/s',
        note: label.startsWith('SQLite')
          ? `no store code: UPDATEs group-committed ${o.clients} per BEGIN IMMEDIATE … COMMIT as the store batches concurrent writes, same durability settings`
          : `no store code: ${o.clients} clients, one autocommit UPDATE each per op (Postgres commits per statement; its group commit is the server's)`,
      },
      appends: {
        section: AUDIT,
        name: `${label}: appends, ${o.clients} appenders`,
        value: median(appendRates),
        unit: 'appends/s',
        samples: appendRates,
        note: `${appends} appends per round; chain read back and verified after each round`,
      },
    };
  } finally {
    await store.dispose();
  }
}

async function benchMemoryAppends(): Promise<Row> {
  const [result] = await runInterleaved(
    [
      {
        name: 'memory: appends, 1 appender',
        note: 'MemoryAuditLog.append of a dispatch/result event (validate, copy, JCS text, SHA-256)',
        prepare: (ops) => {
          const log = new MemoryAuditLog();
          const events = Array.from({ length: ops }, (_, i) => sampleEvent(i));
          return async () => {
            for (const event of events) await log.append(event);
          };
        },
      },
    ],
    { warmupMs: 300, roundMs: 200, rounds: 5, maxOps: 200_000 },
  );
  return { section: AUDIT, name: result!.name, value: result!.opsPerSec, unit: 'appends/s', samples: result!.samples, note: result!.note };
}

/** verifyChain over records read back from a memory log, the whole chain per round. */
async function benchChainVerify(count: number, problems: string[]): Promise<Row> {
  const records = await memoryChain(count);
  const samples: number[] = [];
  for (let round = 0; round < 6; round++) {
    const start = performance.now();
    const verdict = verifyChain(records);
    const ms = performance.now() - start;
    if (!verdict.ok || verdict.count !== count) problems.push(`chain verification: ${verdict.ok ? `count ${verdict.count}` : verdict.reason}`);
    // The first pass is the warm-up.
    if (round > 0) samples.push(count / (ms / 1000));
  }
  return {
    section: AUDIT,
    name: `verifyChain over ${count.toLocaleString('en-US')} memory records`,
    value: median(samples),
    unit: 'records/s',
    samples,
    note: 'shape check + seq/prevHash links + JCS text + SHA-256 per record; 1 warm-up pass, 5 timed',
  };
}
