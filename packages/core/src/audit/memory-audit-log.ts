import { AppendListeners } from './append-listeners.ts';
import { buildRecordAfter } from './chain.ts';
import { readRange } from './read-options.ts';
import type { AuditEvent, AuditHead, AuditLog, AuditRecord, AuditValue } from './types.ts';

// Set by MemoryAuditLog's static block: PreparedAppend's way to the log's private records.
let appendRecords: (log: MemoryAuditLog, records: readonly AuditRecord[]) => void;

/**
 * In-memory AuditLog for tests and single-process demos. `append` does all its work
 * synchronously, so concurrent appends cannot interleave and always form one chain.
 * Stored records are frozen: what `read` returns cannot be used to rewrite the log.
 */
export class MemoryAuditLog implements AuditLog {
  #records: AuditRecord[] = [];
  readonly #listeners = new AppendListeners();

  async append(event: AuditEvent): Promise<AuditRecord> {
    const [record] = this.prepare([event]).commit();
    return record!;
  }

  /**
   * Builds (and validates) the records `events` would become, without appending them:
   * `commit()` appends them, synchronously. For MemoryLedger, which appends its audit
   * records together with its own change: nothing may run between the two calls.
   */
  prepare(events: readonly AuditEvent[]): { commit: () => AuditRecord[] } {
    // The head is this log's own last record (built here, frozen): buildRecordAfter does not re-check it.
    let head: AuditRecord | undefined = this.#records.at(-1);
    const records: AuditRecord[] = [];
    for (const event of events) {
      const record = buildRecordAfter(head, event);
      if (record.detail !== undefined) deepFreeze(record.detail);
      records.push(Object.freeze(record));
      head = record;
    }
    return new PreparedAppend(this, records);
  }

  static {
    // The one way in from PreparedAppend (a class body's private names are visible only inside it).
    appendRecords = (log, records) => {
      for (const record of records) log.#records.push(record);
    };
  }

  onLedgerAppend(listener: (records: readonly AuditRecord[]) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Called by MemoryLedger after appending records in one of its writes. */
  notifyLedgerAppend(records: readonly AuditRecord[]): void {
    this.#listeners.notify(records);
  }

  async read(opts?: { afterSeq?: number; limit?: number }): Promise<AuditRecord[]> {
    const { afterSeq, limit } = readRange(opts);
    // seq n is at index n - 1, so records after `afterSeq` start at index `afterSeq`.
    return this.#records.slice(afterSeq, afterSeq + limit);
  }

  async head(): Promise<AuditHead | undefined> {
    const last = this.#records.at(-1);
    return last === undefined ? undefined : { seq: last.seq, hash: last.hash };
  }

  /** Every record, in order (for tests). */
  records(): readonly AuditRecord[] {
    return this.#records.slice();
  }
}

/**
 * What `prepare` returns: its records, appended by `commit()`. A small object rather than a
 * closure over the log and the records (two of these are made on every dispatch).
 */
class PreparedAppend {
  readonly #log: MemoryAuditLog;
  readonly #records: AuditRecord[];

  constructor(log: MemoryAuditLog, records: AuditRecord[]) {
    this.#log = log;
    this.#records = records;
  }

  commit(): AuditRecord[] {
    appendRecords(this.#log, this.#records);
    return this.#records;
  }
}

// Called on every record with a detail (two per dispatch): members are walked in place
// (no Object.values array) and only objects recurse.
function deepFreeze(value: AuditValue): void {
  if (typeof value !== 'object' || value === null) return;
  const members = value as { readonly [key: string]: AuditValue };
  for (const key in members) {
    if (!Object.hasOwn(members, key)) continue;
    const item = members[key];
    if (typeof item === 'object' && item !== null) deepFreeze(item);
  }
  Object.freeze(value);
}
