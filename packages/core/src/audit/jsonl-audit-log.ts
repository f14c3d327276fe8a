import { type FileHandle, open } from 'node:fs/promises';
import { buildRecord } from './chain.ts';
import { AuditLogError } from './errors.ts';
import { recordLine } from './jsonl.ts';
import { readRange } from './read-options.ts';
import { auditRecordProblem } from './record-shape.ts';
import type { AuditEvent, AuditHead, AuditLog, AuditRecord } from './types.ts';
import { ChainVerifier } from './verify-chain.ts';

export interface JsonlAuditLogOptions {
  /**
   * Verify the whole chain on open (default true) and refuse a corrupt log. When
   * false only the last line is parsed, to find the head: faster on a large file
   * whose integrity is checked some other way.
   */
  verifyOnOpen?: boolean;
  /** fdatasync after each append, so an acknowledged record survives a crash (default true). */
  sync?: boolean;
}

interface LoadedState {
  lineStarts: number[];
  size: number;
  head: AuditHead | undefined;
}

const NEWLINE = 0x0a;

/**
 * AuditLog on a JSON-lines file, one record per line, for a single process.
 *
 * Several processes must NOT share one file: each keeps the head and the line
 * offsets in memory, so two writers would fork the chain. Use the SQLite or
 * Postgres store when more than one process appends.
 *
 * Appends are queued, so concurrent `append` calls within the process form one
 * chain. After a failed write the log refuses further appends (the file may now
 * end in a partial line); reopening reports that line as `corrupt_log`.
 */
export class JsonlAuditLog implements AuditLog {
  readonly path: string;
  #file: FileHandle;
  #sync: boolean;
  /** Byte offset of the line holding seq i + 1. */
  #lineStarts: number[];
  #size: number;
  #head: AuditHead | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #failed: AuditLogError | undefined;
  #closed = false;

  private constructor(path: string, file: FileHandle, sync: boolean, state: LoadedState) {
    this.path = path;
    this.#file = file;
    this.#sync = sync;
    this.#lineStarts = state.lineStarts;
    this.#size = state.size;
    this.#head = state.head;
  }

  /** Opens (creating if missing) the log at `path`. Throws AuditLogError `corrupt_log` or `io_error`. */
  static async open(path: string, opts: JsonlAuditLogOptions = {}): Promise<JsonlAuditLog> {
    let file: FileHandle;
    try {
      // 'a+': reads anywhere, every write goes to the end of the file (O_APPEND).
      file = await open(path, 'a+');
    } catch (error) {
      throw new AuditLogError('io_error', `cannot open audit log ${path}: ${errorText(error)}`, { cause: error });
    }
    try {
      const state = await load(file, path, opts.verifyOnOpen ?? true);
      return new JsonlAuditLog(path, file, opts.sync ?? true, state);
    } catch (error) {
      await file.close().catch(() => undefined);
      throw error;
    }
  }

  async append(event: AuditEvent): Promise<AuditRecord> {
    // Checked when called, not when the queue gets to it: appends made before
    // close() still complete.
    if (this.#closed) throw closedError(this.path);
    const appended = this.#queue.then(() => this.#appendNow(event));
    this.#queue = appended.catch(() => undefined);
    return appended;
  }

  async #appendNow(event: AuditEvent): Promise<AuditRecord> {
    if (this.#failed !== undefined) throw this.#failed;
    // An invalid event rejects this append only; the log stays usable.
    const record = buildRecord(this.#head, event);
    const bytes = Buffer.from(recordLine(record), 'utf8');
    try {
      await this.#file.appendFile(bytes);
      if (this.#sync) await this.#file.datasync();
    } catch (error) {
      this.#failed = new AuditLogError(
        'io_error',
        `append to audit log ${this.path} failed; it accepts no more appends until reopened: ${errorText(error)}`,
        { cause: error },
      );
      throw this.#failed;
    }
    // The state moves only after the line is on disk, so `read` never sees a half-written record.
    this.#lineStarts.push(this.#size);
    this.#size += bytes.length;
    this.#head = { seq: record.seq, hash: record.hash };
    return record;
  }

  async read(opts?: { afterSeq?: number; limit?: number }): Promise<AuditRecord[]> {
    if (this.#closed) throw closedError(this.path);
    const { afterSeq, limit } = readRange(opts);
    const count = this.#lineStarts.length;
    if (afterSeq >= count || limit === 0) return [];
    const endSeq = Math.min(count, afterSeq + limit);
    const start = this.#lineStarts[afterSeq] as number;
    const end = endSeq < count ? (this.#lineStarts[endSeq] as number) : this.#size;
    const bytes = Buffer.alloc(end - start);
    let done = 0;
    while (done < bytes.length) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await this.#file.read(bytes, done, bytes.length - done, start + done));
      } catch (error) {
        throw new AuditLogError('io_error', `cannot read audit log ${this.path}: ${errorText(error)}`, { cause: error });
      }
      // The file shrank behind our back (another writer or an edit).
      if (bytesRead === 0) throw corrupt(this.path, afterSeq + 1, 'is missing: the file is shorter than the log');
      done += bytesRead;
    }
    const records: AuditRecord[] = [];
    let pos = 0;
    for (let seq = afterSeq + 1; seq <= endSeq; seq++) {
      const lineEnd = bytes.indexOf(NEWLINE, pos);
      const record = parseLine(bytes, pos, lineEnd === -1 ? bytes.length : lineEnd, seq, this.path);
      // The file was changed behind our back (another writer or an edit).
      if (record.seq !== seq) throw corrupt(this.path, seq, `holds seq ${record.seq}`);
      records.push(record);
      pos = lineEnd + 1;
    }
    return records;
  }

  async head(): Promise<AuditHead | undefined> {
    return this.#head === undefined ? undefined : { ...this.#head };
  }

  /** Waits for queued appends, then releases the file. Later calls fail with `closed`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    await this.#file.close();
  }
}

async function load(file: FileHandle, path: string, verify: boolean): Promise<LoadedState> {
  let bytes: Buffer;
  try {
    bytes = await file.readFile();
  } catch (error) {
    throw new AuditLogError('io_error', `cannot read audit log ${path}: ${errorText(error)}`, { cause: error });
  }
  const verifier = verify ? new ChainVerifier() : undefined;
  const lineStarts: number[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const line = lineStarts.length + 1;
    const end = bytes.indexOf(NEWLINE, pos);
    if (end === -1) {
      // Appending after a partial line would glue the next record onto it, so stop here
      // and let a person decide (usually: truncate the file to the last full line).
      throw corrupt(
        path,
        line,
        `is incomplete (no newline at end of file): a write was probably interrupted; the complete lines end at byte ${pos}`,
      );
    }
    lineStarts.push(pos);
    if (verifier !== undefined) {
      const failure = verifier.push(parseLine(bytes, pos, end, line, path));
      if (failure !== undefined) throw corrupt(path, line, `fails verification (${failure.reason}): ${failure.message}`);
    }
    pos = end + 1;
  }
  if (verifier !== undefined) {
    const verdict = verifier.finish();
    return { lineStarts, size: bytes.length, head: verdict.ok ? verdict.head : undefined };
  }
  const count = lineStarts.length;
  if (count === 0) return { lineStarts, size: bytes.length, head: undefined };
  const last = parseLine(bytes, lineStarts[count - 1] as number, bytes.length - 1, count, path);
  // Line n holds seq n in any valid log; anything else means lines were added or removed.
  if (last.seq !== count) throw corrupt(path, count, `holds seq ${last.seq}, expected ${count}`);
  return { lineStarts, size: bytes.length, head: { seq: last.seq, hash: last.hash } };
}

function parseLine(bytes: Buffer, start: number, end: number, line: number, path: string): AuditRecord {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8', start, end));
  } catch (error) {
    throw corrupt(path, line, `is not valid JSON: ${errorText(error)}`);
  }
  const problem = auditRecordProblem(value);
  if (problem !== undefined) throw corrupt(path, line, `is not a valid audit record: ${problem}`);
  return value as AuditRecord;
}

function corrupt(path: string, line: number, what: string): AuditLogError {
  return new AuditLogError('corrupt_log', `audit log ${path}: line ${line} ${what}`);
}

function closedError(path: string): AuditLogError {
  return new AuditLogError('closed', `audit log ${path} is closed`);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
