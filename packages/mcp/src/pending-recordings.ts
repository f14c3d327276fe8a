/**
 * Results the gateway answered before their recording settled (see `forward` in
 * call-tool.ts): kept until they settle, so closing the gateway waits for them before the
 * store under it is closed. Each promise never rejects (`runGranted` reports failures).
 */
export class PendingRecordings {
  readonly #pending = new Set<Promise<void>>();

  add(recorded: Promise<void>): void {
    this.#pending.add(recorded);
    void recorded.finally(() => this.#pending.delete(recorded));
  }

  /** Resolves once every recording added so far, and any added meanwhile, has settled. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }
}
