import type { LedgerStore } from '../../ledger/types.ts';

export type StoreProbe = { ok: true } | { ok: false; reason: 'store_unavailable' | 'store_timeout' };

/** Stores without `ping`: one indexed lookup (whether the run exists does not matter). */
const PROBE_RUN_ID = 'countersign-readiness-probe';

/**
 * Whether the store answers now: its `ping` (or, without one, one read), bounded by
 * `timeoutMs` so a hung connection makes the probe fail rather than hang the load
 * balancer's check. Never throws; the store's error text is not returned (it may
 * name hosts or paths), only the reason code.
 */
export async function probeStore(ledger: LedgerStore, timeoutMs: number): Promise<StoreProbe> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<StoreProbe>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, reason: 'store_timeout' }), timeoutMs);
  });
  const probe = (async (): Promise<StoreProbe> => {
    if (ledger.ping !== undefined) await ledger.ping();
    else await ledger.getRunOwner(PROBE_RUN_ID);
    return { ok: true };
  })().catch((): StoreProbe => ({ ok: false, reason: 'store_unavailable' }));
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
