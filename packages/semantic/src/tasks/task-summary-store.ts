import { hash, randomUUID } from 'node:crypto';
import type { Keyring } from '@countersign/core/token';
import { openTask, type SealedTask, sealTask } from './sealed-task.ts';

/** Where sealed summaries live: only ciphertext and digests ever reach it. */
export interface TaskSummaryBackend {
  put(record: SealedTask): Promise<void>;
  get(taskId: string): Promise<SealedTask | undefined>;
  delete(taskId: string): Promise<boolean>;
  /** Deletes every record with `expiresAt <= now`; returns how many. */
  deleteExpired(now: number): Promise<number>;
}

/** This process's memory (a single-process gateway or proxy; tests). */
export function memoryTaskBackend(): TaskSummaryBackend & { readonly records: ReadonlyMap<string, SealedTask> } {
  const records = new Map<string, SealedTask>();
  return {
    records,
    put: async (record) => void records.set(record.taskId, record),
    get: async (taskId) => records.get(taskId),
    delete: async (taskId) => records.delete(taskId),
    async deleteExpired(now) {
      let n = 0;
      for (const [id, r] of records) if (r.expiresAt <= now && records.delete(id)) n++;
      return n;
    },
  };
}

export interface TaskSummaryStoreOptions {
  keyring: Keyring;
  backend?: TaskSummaryBackend | undefined;
  /** How long a summary is kept (and readable). Default one hour: a task is a turn, not a profile. */
  retentionMs?: number | undefined;
  clock?: (() => number) | undefined;
  newId?: (() => string) | undefined;
}

const MAX_TASK_LENGTH = 4000;

/**
 * Task summaries at rest, so a call can name its task by id across calls (`taskId` in
 * propose) instead of carrying the sentence: encrypted with AES-256-GCM under a key the
 * gate's HKDF derivation gives for the run (see sealed-task.ts), kept `retentionMs` and
 * then deleted (`sweep`, and on read). Only the task's digest goes to the audit chain
 * (the gate's intent stage computes it from the text it resolves).
 */
export class TaskSummaryStore {
  readonly #keyring: Keyring;
  readonly #backend: TaskSummaryBackend;
  readonly #retentionMs: number;
  readonly #clock: () => number;
  readonly #newId: () => string;

  constructor(options: TaskSummaryStoreOptions) {
    const retention = options.retentionMs ?? 3_600_000;
    if (!Number.isFinite(retention) || retention <= 0) throw new TypeError('retentionMs must be a positive number');
    this.#keyring = options.keyring;
    this.#backend = options.backend ?? memoryTaskBackend();
    this.#retentionMs = retention;
    this.#clock = options.clock ?? Date.now;
    this.#newId = options.newId ?? randomUUID;
  }

  /** Stores `task` for `runId`; the id is what calls of that run pass as `taskId`. */
  async save(runId: string, task: string): Promise<{ taskId: string; taskDigest: string; expiresAt: number }> {
    if (typeof task !== 'string' || task.trim() === '' || task.length > MAX_TASK_LENGTH || !task.isWellFormed()) {
      throw new TypeError(`a task must be a non-empty, well-formed string of at most ${MAX_TASK_LENGTH} characters`);
    }
    const now = this.#clock();
    const fields = { taskId: this.#newId(), runId, taskDigest: hash('sha256', task, 'hex'), createdAt: now, expiresAt: now + this.#retentionMs };
    await this.#backend.put(sealTask(this.#keyring, fields, task));
    return { taskId: fields.taskId, taskDigest: fields.taskDigest, expiresAt: fields.expiresAt };
  }

  /**
   * The task text, only for the run it was saved for and before it expires (an expired
   * one is deleted now). Undefined for anything else, a record that does not decrypt
   * included: the gate's intent stage then fails closed.
   */
  async read(taskId: string, runId: string): Promise<string | undefined> {
    const sealed = await this.#backend.get(taskId);
    if (sealed === undefined || sealed.runId !== runId) return undefined;
    if (sealed.expiresAt <= this.#clock()) {
      await this.#backend.delete(taskId);
      return undefined;
    }
    const task = openTask(this.#keyring, sealed);
    return task !== undefined && hash('sha256', task, 'hex') === sealed.taskDigest ? task : undefined;
  }

  delete(taskId: string): Promise<boolean> {
    return this.#backend.delete(taskId);
  }

  /** Deletes every expired summary (run it on a timer); returns how many. */
  sweep(): Promise<number> {
    return this.#backend.deleteExpired(this.#clock());
  }

  /** For `GateConfig.intent.resolveTask`: a call's `taskId` resolves only within the call's run. */
  resolver(): (taskId: string, call: { runId: string }) => Promise<string | undefined> {
    return (taskId, call) => this.read(taskId, call.runId);
  }
}
