import { buildRecord } from './chain.ts';
import { readRange } from './read-options.ts';
import type { AuditEvent, AuditHead, AuditLog, AuditRecord, AuditValue } from './types.ts';

/**
 * In-memory AuditLog for tests and single-process demos. `append` does all its work
 * synchronously, so concurrent appends cannot interleave and always form one chain.
 * Stored records are frozen: what `read` returns cannot be used to rewrite the log.
 */
export class MemoryAuditLog implements AuditLog {
  #records: AuditRecord[] = [];

  async append(event: AuditEvent): Promise<AuditRecord> {
    const last = this.#records.at(-1);
    const record = buildRecord(last === undefined ? undefined : { seq: last.seq, hash: last.hash }, event);
    if (record.detail !== undefined) deepFreeze(record.detail);
    Object.freeze(record);
    this.#records.push(record);
    return record;
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

function deepFreeze(value: AuditValue): void {
  if (typeof value !== 'object' || value === null) return;
  for (const item of Object.values(value)) deepFreeze(item);
  Object.freeze(value);
}
