import type { LedgerStore } from '@countersign/core/ledger';

/** Called once per store operation with its name, duration and whether it threw. */
export type StoreObserver = (operation: string, seconds: number, outcome: 'ok' | 'error') => void;

/**
 * The same ledger, each asynchronous method timed. A Proxy rather than a subclass so
 * every store (memory, SQLite, Postgres) is measured without knowing it; `auditLog`
 * and other properties pass through unchanged, so the gate still sees the store's own
 * audit log and commits ledger and audit records in one transaction.
 */
export function timedLedger<L extends LedgerStore>(ledger: L, observe: StoreObserver): L {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(ledger, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || property === 'constructor') return value;
      let timed = wrapped.get(property);
      if (timed === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        const name = String(property);
        timed = (...args: unknown[]) => {
          const started = performance.now();
          const seconds = () => (performance.now() - started) / 1000;
          let result: unknown;
          try {
            result = method.apply(target, args);
          } catch (error) {
            observe(name, seconds(), 'error');
            throw error;
          }
          if (!(result instanceof Promise)) return result;
          return result.then(
            (settled: unknown) => {
              observe(name, seconds(), 'ok');
              return settled;
            },
            (error: unknown) => {
              observe(name, seconds(), 'error');
              throw error;
            },
          );
        };
        wrapped.set(property, timed);
      }
      return timed;
    },
  });
}
