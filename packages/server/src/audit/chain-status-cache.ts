import type { Clock } from '@countersign/core';
import type { AuditReader } from '@countersign/core/audit';
import { type ChainStatus, chainStatus } from './chain-status.ts';

export interface CachedChainStatus extends Readonly<{ status: ChainStatus; checkedAt: number }> {}

/**
 * A full chain verification costs time linear in the log, and every audit view asks
 * for one. Concurrent callers share the verification in flight, and a finished one is
 * reused for `maxAgeMs`, so viewers cannot make the server verify more than once per
 * interval. `countersign audit verify` is the full, uncached check.
 */
export class ChainStatusCache {
  readonly #audit: AuditReader;
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  #last: CachedChainStatus | undefined;
  #inFlight: Promise<CachedChainStatus> | undefined;

  constructor(audit: AuditReader, clock: Clock, maxAgeMs: number) {
    this.#audit = audit;
    this.#clock = clock;
    this.#maxAgeMs = maxAgeMs;
  }

  get(): Promise<CachedChainStatus> {
    const last = this.#last;
    if (last !== undefined && this.#clock() - last.checkedAt < this.#maxAgeMs) return Promise.resolve(last);
    this.#inFlight ??= this.#verify().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  async #verify(): Promise<CachedChainStatus> {
    const checkedAt = this.#clock();
    const status = await chainStatus(this.#audit);
    this.#last = { status, checkedAt };
    return this.#last;
  }
}
