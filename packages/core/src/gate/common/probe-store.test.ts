import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../ledger/errors.ts';
import { MemoryLedger } from '../../ledger/memory-ledger.ts';
import type { LedgerStore } from '../../ledger/types.ts';
import { probeStore } from './probe-store.ts';

const withPing = (ping: () => Promise<void>) => Object.assign(Object.create(new MemoryLedger()), { ping }) as LedgerStore;

describe('probeStore (readiness)', () => {
  it('is ok when the store answers: its ping, or one read when it has none', async () => {
    expect(await probeStore(new MemoryLedger(), 1000)).toEqual({ ok: true });
    expect(await probeStore(withPing(async () => {}), 1000)).toEqual({ ok: true });
  });

  it('answers store_unavailable when the store throws, without the error text', async () => {
    const result = await probeStore(withPing(() => Promise.reject(new LedgerError('store_unavailable', 'connect ECONNREFUSED 10.0.0.7:5432'))), 1000);
    expect(result).toEqual({ ok: false, reason: 'store_unavailable' });
    const noPing = Object.assign(Object.create(new MemoryLedger()), { ping: undefined, getRunOwner: () => Promise.reject(new Error('down')) }) as LedgerStore;
    expect(await probeStore(noPing, 1000)).toEqual({ ok: false, reason: 'store_unavailable' });
  });

  it('answers store_timeout instead of hanging when the store never answers', async () => {
    expect(await probeStore(withPing(() => new Promise(() => {})), 20)).toEqual({ ok: false, reason: 'store_timeout' });
  });
});
