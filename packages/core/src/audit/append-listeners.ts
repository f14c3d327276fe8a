import type { AuditRecord } from './types.ts';

/**
 * The listeners of `AuditLog.onLedgerAppend`, for store authors: a ledger transaction
 * that appended records calls `notify` after its commit. A listener that throws is
 * ignored: the records are committed, and the ledger write must not report failure.
 */
export class AppendListeners {
  readonly #listeners = new Set<(records: readonly AuditRecord[]) => void>();

  add(listener: (records: readonly AuditRecord[]) => void): () => void {
    // Wrapped so the same function subscribed twice is two subscriptions.
    const entry = (records: readonly AuditRecord[]) => listener(records);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  notify(records: readonly AuditRecord[]): void {
    // Nobody listening (the common case, on every ledger write): not even an iterator.
    if (records.length === 0 || this.#listeners.size === 0) return;
    for (const listener of this.#listeners) {
      try {
        listener(records);
      } catch {
        // See the class comment.
      }
    }
  }
}
