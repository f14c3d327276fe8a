import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LifecycleHarness, runLifecycleModel } from '@countersign/core/testing';
import { describe, it } from 'vitest';
import { openSqliteStore } from './open.ts';

/** A fresh file per history; a restart closes the store and reopens the file, as after process death. */
async function sqliteHarness(): Promise<LifecycleHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-model-'));
  const path = join(dir, 'countersign.sqlite');
  return {
    open: async () => {
      const store = openSqliteStore({ path });
      return { ledger: store.ledger, audit: store.audit, close: () => store.close() };
    },
    destroy: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('the approval lifecycle model, SQLite store', () => {
  it('random histories with store faults and restarts from the file match the model', async () => {
    await runLifecycleModel({ harness: sqliteHarness, numRuns: 30, maxSteps: 30, steps: { faults: true, restarts: true, concurrency: false } });
  }, 60_000);

  it('concurrent actions under a controlled scheduler are explained by some order of them', async () => {
    await runLifecycleModel({ harness: sqliteHarness, numRuns: 25, maxSteps: 25, steps: { faults: false, restarts: false, concurrency: true } });
  }, 60_000);
});
