import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLifecycleModel, type KillableHarness, type LifecycleHarness, runKilledLifecycleModel } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from './open.ts';

/** A fresh file per history; a restart closes the store and reopens the file, as after process death. */
async function sqliteHarness(): Promise<LifecycleHarness> {
  return (await killableSqlite()).harness;
}

async function killableSqlite(): Promise<KillableHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-model-'));
  const path = join(dir, 'countersign.sqlite');
  const harness: LifecycleHarness = {
    open: async () => {
      const store = openSqliteStore({ path });
      return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
    },
    destroy: async () => rmSync(dir, { recursive: true, force: true }),
  };
  return { harness, location: path };
}

describeLifecycleModel('SQLite store', sqliteHarness, { numRuns: 30, maxSteps: 30, timeoutMs: 60_000 });

describe('the approval lifecycle model, SQLite store, gate process SIGKILLed', () => {
  // A few fixed seeds for CI; `npm run soak` runs many more.
  const worker = join(import.meta.dirname, 'testing', 'lifecycle-worker.ts');
  it('a worker process running the gate is killed between two steps or inside one; the model goes on from the reopened file', async () => {
    const stats = await runKilledLifecycleModel({ harness: killableSqlite, worker, numRuns: 2, maxSteps: 20, seed: 32 });
    expect(stats.kills).toBe(2);
  }, 120_000);

  it('a store that loses what the killed process committed fails the model (the reopened store is read, not assumed)', async () => {
    // After the kill, this process opens a fresh file instead of the worker's: an amnesiac store.
    const amnesiac = async (): Promise<KillableHarness> => {
      const real = await killableSqlite();
      const elsewhere = await killableSqlite();
      return { location: real.location, harness: { open: elsewhere.harness.open, destroy: async () => Promise.all([real.harness.destroy(), elsewhere.harness.destroy()]).then(() => undefined) } };
    };
    const failed = await runKilledLifecycleModel({ harness: amnesiac, worker, numRuns: 10, maxSteps: 20, seed: 32, shrink: false }).then(
      () => 'no violation',
      (error: unknown) => String(error instanceof Error && error.cause instanceof Error ? error.cause.message : error),
    );
    expect(failed).toMatch(/store holds|missing|records/);
  }, 120_000);
});
