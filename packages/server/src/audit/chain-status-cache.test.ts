import { manualClock } from '@countersign/core/testing';
import { type AuditLog, MemoryAuditLog } from '@countersign/core/audit';
import { describe, expect, it } from 'vitest';
import { ChainStatusCache } from './chain-status-cache.ts';

function countingLog(inner: AuditLog) {
  let reads = 0;
  const log: AuditLog = {
    append: (e) => inner.append(e),
    head: () => inner.head(),
    read: (opts) => {
      reads++;
      return inner.read(opts);
    },
  };
  return { log, reads: () => reads };
}

describe('ChainStatusCache', () => {
  it('shares one verification among concurrent callers and reuses it until it is too old', async () => {
    const memory = new MemoryAuditLog();
    await memory.append({ type: 'proposal', at: 1, runId: 'r' });
    const { log, reads } = countingLog(memory);
    const clock = manualClock(1_000);
    const cache = new ChainStatusCache(log, clock, 10_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => cache.get()));
    expect(reads()).toBe(1);
    expect(results.every((r) => r.status.ok && r.checkedAt === 1_000)).toBe(true);
    clock.advance(9_999);
    await cache.get();
    expect(reads()).toBe(1);
    clock.advance(1);
    const fresh = await cache.get();
    expect(reads()).toBe(2);
    expect(fresh.checkedAt).toBe(11_000);
  });

  it('a failed verification is not cached; the next call tries again', async () => {
    const memory = new MemoryAuditLog();
    let fail = true;
    const log: AuditLog = {
      append: (e) => memory.append(e),
      head: () => memory.head(),
      read: (opts) => (fail ? Promise.reject(new Error('store down')) : memory.read(opts)),
    };
    const cache = new ChainStatusCache(log, manualClock(), 10_000);
    await expect(cache.get()).rejects.toThrow('store down');
    fail = false;
    await expect(cache.get()).resolves.toMatchObject({ status: { ok: true } });
  });
});
