import type { GateDeps } from '../config.ts';

/** What one holder keeps per gate at most. */
export interface HeldLimits {
  /** Entries. */
  entries: number;
  /** Total weight (`weigh`: the characters of the call's canonical arguments): an agent's large calls cannot pile up in memory. */
  weight: number;
}

interface Entry<T> {
  rows: T;
  weight: number;
}

interface Held<T> {
  entries: Map<string, Entry<T>>;
  weight: number;
}

/**
 * Rows one step of a gate has just written or read, held for the gate's next step on the same
 * call, so that step does not read back what this process already knows (a minted token's
 * rows, a call just recorded, a grant just issued). Keyed by the gate's own deps and the
 * proposal id: only this module's owner adds to it and nothing outside reads it, so a step on
 * another gate, process or replica finds nothing and reads the ledger as before.
 *
 * Each entry is taken at most once (a retried or repeated step reads the ledger). Past the
 * limits the oldest entries are forgotten, and rows heavier than the whole budget are not held:
 * either costs only the read it would have saved. Holding a row never replaces the store's
 * decision: each step's write still decides on the locked rows (a call consumed, a request
 * revoked, a result already stored).
 */
export class HeldRows<T> {
  readonly #byGate = new WeakMap<GateDeps, Held<T>>();
  readonly #limits: HeldLimits;
  readonly #weigh: (rows: T) => number;

  constructor(limits: HeldLimits, weigh: (rows: T) => number) {
    this.#limits = limits;
    this.#weigh = weigh;
  }

  hold(deps: GateDeps, proposalId: string, rows: T): void {
    let held = this.#byGate.get(deps);
    if (held === undefined) {
      held = { entries: new Map(), weight: 0 };
      this.#byGate.set(deps, held);
    }
    this.#remove(held, proposalId);
    const weight = this.#weigh(rows);
    if (weight > this.#limits.weight) return;
    held.entries.set(proposalId, { rows, weight });
    held.weight += weight;
    while (held.entries.size > this.#limits.entries || held.weight > this.#limits.weight) {
      this.#remove(held, held.entries.keys().next().value!);
    }
  }

  /** The rows held for `proposalId` by this gate, removed as they are returned. */
  take(deps: GateDeps, proposalId: string): T | undefined {
    const held = this.#byGate.get(deps);
    return held === undefined ? undefined : this.#remove(held, proposalId)?.rows;
  }

  forget(deps: GateDeps, proposalId: string): void {
    const held = this.#byGate.get(deps);
    if (held !== undefined) this.#remove(held, proposalId);
  }

  #remove(held: Held<T>, proposalId: string): Entry<T> | undefined {
    const entry = held.entries.get(proposalId);
    if (entry === undefined) return undefined;
    held.entries.delete(proposalId);
    held.weight -= entry.weight;
    return entry;
  }
}

/** The limits of each holder (per gate): enough for every call in flight at a few hundred clients, small beside the process. */
export const HELD_LIMITS: HeldLimits = { entries: 1_024, weight: 4 * 1_024 * 1_024 };
