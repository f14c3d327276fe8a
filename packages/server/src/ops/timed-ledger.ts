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
        const record = (started: number, outcome: 'ok' | 'error') => {
          try {
            observe(name, (performance.now() - started) / 1000, outcome);
          } catch {
            // A metric that cannot be recorded must not fail the store call it measured (nor, below, go unhandled).
          }
        };
        timed = (...args: unknown[]) => {
          const started = performance.now();
          let result: unknown;
          try {
            result = method.apply(target, args);
          } catch (error) {
            record(started, 'error');
            throw error;
          }
          if (!(result instanceof Promise)) return result;
          // Observed beside the caller's own wait, not in front of it: the caller awaits the
          // store's promise itself (one hop fewer per store call), and these reactions, added
          // first, still run before it resumes. The branch always settles: nothing unhandled.
          result.then(
            () => record(started, 'ok'),
            () => record(started, 'error'),
          );
          return result;
        };
        wrapped.set(property, timed);
      }
      return timed;
    },
  });
}
