/** Runs remembered at most; past it the oldest is forgotten (and claimed again on its next call). */
const MAX_RUNS = 4_096;

/**
 * The owners of runs this process has seen COMMITTED, so a later call of the same run
 * by the same agent can skip the claim (a runs row never changes or goes away once
 * inserted: first writer wins, forever). Only a hit for the very agent asking is a
 * shortcut; anything else (unknown run, another agent) takes the full claim statement,
 * which decides. Callers must `remember` only after the commit that made the run theirs:
 * a claim rolled back with its transaction was never an owner.
 */
export class RunOwners {
  readonly #owners = new Map<string, string>();

  /** Whether `agent` is known to own `runId`. */
  owns(runId: string, agent: string): boolean {
    return this.#owners.get(runId) === agent;
  }

  remember(runId: string, agent: string): void {
    if (this.#owners.has(runId)) return;
    if (this.#owners.size >= MAX_RUNS) this.#owners.delete(this.#owners.keys().next().value!);
    this.#owners.set(runId, agent);
  }
}
