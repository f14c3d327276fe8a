import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditLog } from '@countersign/core/audit';
import type { LedgerStore } from '@countersign/core/ledger';
import { openPostgresStore } from '@countersign/store-postgres';
import { openSqliteStore } from '@countersign/store-sqlite';
import { postgresCommitCeiling, sqliteCommitCeiling } from './commit-ceiling.ts';
import { dropSchema } from './drop-schema.ts';

export interface BenchStore {
  label: string;
  ledger: LedgerStore;
  audit: AuditLog;
  /** Committed single-row UPDATEs per second outside the store, committed as the store commits (see commit-ceiling.ts). */
  commitCeiling(count: number, clients: number): Promise<number>;
  /**
   * Durable commits (COMMITs that reached the disk) so far, from the store's own counter
   * (`durableCommits()` on the SQLite and PostgreSQL stores); undefined = n/a.
   */
  durableCommits?(): number | undefined;
  /** Closes the store and deletes what it created (file, schema). */
  dispose(): Promise<void>;
}

export type OpenResult = { ok: true; store: BenchStore } | { ok: false; reason: string };

export const PG_URL = process.env.COUNTERSIGN_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A SQLite store on a fresh file in the OS temp directory (a real disk here, not tmpfs). */
export function openSqliteBench(): BenchStore {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-bench-'));
  const store = openSqliteStore({ path: join(dir, 'bench.sqlite') });
  return {
    label: 'SQLite',
    ledger: store.ledger,
    audit: store.audit,
    commitCeiling: async (count, clients) => sqliteCommitCeiling(count, clients),
    durableCommits: () => store.durableCommits(),
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PostgreSQL store on a fresh schema, dropped on dispose. Unreachable or failing
 * PostgreSQL is a skip with its reason, never a failed bench.
 */
export async function openPostgresBench(poolSize: number): Promise<OpenResult> {
  const schema = `cs_bench_${randomBytes(6).toString('hex')}`;
  try {
    const store = await openPostgresStore({
      connectionString: PG_URL,
      schema,
      pool: { max: poolSize, connectionTimeoutMillis: 3_000 },
    });
    return {
      ok: true,
      store: {
        label: 'PostgreSQL',
        ledger: store.ledger,
        audit: store.audit,
        commitCeiling: (count, clients) => postgresCommitCeiling(PG_URL, schema, count, clients),
        durableCommits: () => store.durableCommits(),
        dispose: async () => {
          await store.close();
          await dropSchema(PG_URL, schema);
        },
      },
    };
  } catch (error) {
    await dropSchema(PG_URL, schema).catch(() => {});
    return { ok: false, reason: `PostgreSQL at ${redact(PG_URL)} unusable: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** The URL without its password, for printing. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
