import type { GateDeps } from '../config.ts';

/**
 * Rows one step of a gate has just written or read, held for the gate's next step on the same
 * call, so that step does not read back what this process already knows (a minted token's
 * rows, a call just recorded, a grant just issued). Keyed by the gate's own deps and the
 * proposal id: only this module's owner adds to it and nothing outside reads it, so a step on
 * another gate, process or replica finds nothing and reads the ledger as before.
 *
 * Each entry is taken at most once (a retried or repeated step reads the ledger), and at most
 * `max` are held per gate: past it the oldest is forgotten, which costs only the read it saved.
 * Holding a row never replaces the store's decision: each step's write still decides on the
 * locked rows (a call consumed, a request revoked, a result already stored).
 */
export class HeldRows<T> {
  readonly #byGate = new WeakMap<GateDeps, Map<string, T>>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  hold(deps: GateDeps, proposalId: string, rows: T): void {
    let held = this.#byGate.get(deps);
    if (held === undefined) {
      held = new Map();
      this.#byGate.set(deps, held);
    }
    held.delete(proposalId);
    if (held.size >= this.#max) held.delete(held.keys().next().value!);
    held.set(proposalId, rows);
  }

  /** The rows held for `proposalId` by this gate, removed as they are returned. */
  take(deps: GateDeps, proposalId: string): T | undefined {
    const held = this.#byGate.get(deps);
    const found = held?.get(proposalId);
    if (found !== undefined) held!.delete(proposalId);
    return found;
  }

  forget(deps: GateDeps, proposalId: string): void {
    this.#byGate.get(deps)?.delete(proposalId);
  }
}
