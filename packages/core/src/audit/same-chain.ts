import type { AuditLog } from './types.ts';

/**
 * Whether a store that appends to `storeLog` in its own transactions appends to the
 * chain `log` writes: `storeLog` is `log`, or the log `log` wraps (a checkpointing wrapper
 * around the store's own log). Then a store write and its records commit together.
 */
export function appendsToSameChain(log: AuditLog, storeLog: AuditLog | undefined): boolean {
  if (storeLog === undefined) return false;
  for (let current: AuditLog | undefined = log; current !== undefined; current = current.wrapped) {
    if (current === storeLog) return true;
  }
  return false;
}
