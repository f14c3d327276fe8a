/**
 * What an integration remembers about a call the model made: the ledger's proposal
 * (and approval request) for it. Kept on the app server, keyed by run and tool-call id,
 * so a later request that resends the history finds the ledger's call, and a call that
 * is in the history but was never proposed from a model response is not found.
 */
export interface IndexedCall {
  proposalId: string;
  requestId?: string | undefined;
  toolName: string;
  /** SHA-256 (hex) of the call's canonical arguments, as the ledger recorded them. */
  argsDigest: string;
}

/**
 * Where an integration keeps `IndexedCall`s between requests. The default lives in
 * memory (one process); an app with several replicas stores them where it keeps its
 * sessions. A lost or stale entry can only refuse a call, never run one: `authorize`
 * checks every field against the ledger.
 */
export interface CallIndex {
  get(runId: string, toolCallId: string): IndexedCall | undefined | Promise<IndexedCall | undefined>;
  set(runId: string, toolCallId: string, call: IndexedCall): void | Promise<void>;
  /**
   * Whether this integration gave exactly `text` as a refusal for the call (see
   * `relayChecked`): a relayed refusal is trusted only then. An index without these two methods trusts no relayed refusal (the
   * model request is refused instead: deny by default).
   */
  hasRefusal?(runId: string, toolCallId: string, text: string): boolean | Promise<boolean>;
  recordRefusal?(runId: string, toolCallId: string, text: string): void | Promise<void>;
  /**
   * The result a call's tool returned, as the framework relays it (see `rememberResult`):
   * a framework that runs a finished call again (LangGraph's single ToolNode task re-run
   * after a sibling's interrupt) gets it back instead of a refusal, and the tool never runs
   * twice. Trusted only when the ledger says it is the call's recorded result. An index
   * without these two methods answers such a re-run with the gate's `already_consumed`.
   */
  getResult?(runId: string, toolCallId: string): RememberedResult | undefined | Promise<RememberedResult | undefined>;
  recordResult?(runId: string, toolCallId: string, result: RememberedResult): void | Promise<void>;
}

/** A tool's result as the framework relays it: `content` is what the model reads (and the ledger's digest covers). */
export interface RememberedResult {
  content: unknown;
  /** Framework-specific fields that go back with it (e.g. the ledger ids of an edited call). */
  extra?: Record<string, unknown> | undefined;
}

/** A `CallIndex` in process memory, bounded (oldest entries are dropped first). */
export function memoryCallIndex(options: { maxEntries?: number } = {}): CallIndex {
  const maxEntries = options.maxEntries ?? 100_000;
  const calls = new Map<string, IndexedCall>();
  const refusals = new Map<string, true>();
  const results = new Map<string, RememberedResult>();
  // A JSON pair cannot collide the way `${runId}/${toolCallId}` could.
  const key = (runId: string, toolCallId: string) => JSON.stringify([runId, toolCallId]);
  return {
    get: (runId, toolCallId) => calls.get(key(runId, toolCallId)),
    set: (runId, toolCallId, call) => boundedSet(calls, key(runId, toolCallId), call, maxEntries),
    hasRefusal: (runId, toolCallId, text) => refusals.has(JSON.stringify([runId, toolCallId, text])),
    recordRefusal: (runId, toolCallId, text) => boundedSet(refusals, JSON.stringify([runId, toolCallId, text]), true, maxEntries),
    getResult: (runId, toolCallId) => results.get(key(runId, toolCallId)),
    recordResult: (runId, toolCallId, result) => boundedSet(results, key(runId, toolCallId), result, maxEntries),
  };
}

function boundedSet<V>(map: Map<string, V>, key: string, value: V, maxEntries: number): void {
  map.set(key, value);
  if (map.size > maxEntries) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
}
