import { MemoryAuditLog } from '../audit/memory-audit-log.ts';
import { MemoryLedger } from '../ledger/memory-ledger.ts';
import type { LedgerStore } from '../ledger/types.ts';

/** Where the next consume fails. */
export type ConsumeFault = 'after_commit' | 'before_commit' | 'after_commit_and_reads';

/**
 * A ledger whose next consume fails like a connection cut: before anything commits, or
 * after the consume committed (COMMIT reached the database, its reply was lost),
 * optionally with every read failing too.
 */
export function faultyConsumeLedger() {
  const audit = new MemoryAuditLog();
  const inner = new MemoryLedger({ audit });
  const state: { fault: ConsumeFault | undefined; readsFail: boolean } = { fault: undefined, readsFail: false };
  const ledger = new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'consume') {
        return async (...args: unknown[]) => {
          const fault = state.fault;
          state.fault = undefined;
          if (fault === 'before_commit') throw new Error('Connection terminated unexpectedly');
          const result = await value.apply(target, args);
          if (fault === undefined) return result;
          if (fault === 'after_commit_and_reads') state.readsFail = true;
          throw new Error('Connection terminated unexpectedly');
        };
      }
      if (property === 'getProposal') {
        return (...args: unknown[]) => (state.readsFail ? Promise.reject(new Error('connection refused')) : value.apply(target, args));
      }
      return value.bind(target);
    },
  }) as LedgerStore;
  return { ledger, audit, state };
}
