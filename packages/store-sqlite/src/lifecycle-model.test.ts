import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLifecycleModel, type LifecycleHarness } from '@countersign/core/testing';
import { openSqliteStore } from './open.ts';

/** A fresh file per history; a restart closes the store and reopens the file, as after process death. */
async function sqliteHarness(): Promise<LifecycleHarness> {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-model-'));
  const path = join(dir, 'countersign.sqlite');
  return {
    open: async () => {
      const store = openSqliteStore({ path });
      return { ledger: store.ledger, audit: store.audit, definitions: store.definitions, close: () => store.close() };
    },
    destroy: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describeLifecycleModel('SQLite store', sqliteHarness, { numRuns: 30, maxSteps: 30, timeoutMs: 60_000 });
