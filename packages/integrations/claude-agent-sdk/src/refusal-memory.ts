import { type CallIndex, memoryCallIndex } from '@countersign/core/integration';

/**
 * The refusals the hooks gave, in the exact forms the Claude runtime relays them back to
 * the model, by run and tool-use id, kept in a `CallIndex` (core's, as every integration
 * keeps them). A denied call's `tool_result` carries the hook's reason, which the ledger
 * holds no result for: the relay check lets it through only when it is exactly a refusal
 * this integration gave for that call of that run (refusal-shaped text is never trusted
 * for its format). A session resumed later relays its old refusals again, so the index
 * must outlive one query: by default one per process, shared by every guard.
 */
export class RefusalMemory {
  readonly #index: CallIndex;

  constructor(index: CallIndex = PROCESS_INDEX) {
    this.#index = index;
  }

  /**
   * `text` as given, and as the runtime writes a PreToolUse denial into the tool_result
   * (`PreToolUse:<tool> hook error: <reason>`, runtime 0.3.x). Never throws: a refusal not
   * recorded is refused when relayed (deny by default).
   */
  record(runId: string, callId: string, toolName: string, text: string): void {
    for (const form of [text, `PreToolUse:${toolName} hook error: ${text}`]) {
      try {
        Promise.resolve(this.#index.recordRefusal?.(runId, callId, form)).catch(() => undefined);
      } catch {
        // As above.
      }
    }
  }

  /** Whether `content` (a tool_result's content, as relayed) is a refusal given for this call. Only a plain string can be. */
  async has(runId: string, callId: string, content: unknown): Promise<boolean> {
    if (typeof content !== 'string' || this.#index.hasRefusal === undefined) return false;
    return (await this.#index.hasRefusal(runId, callId, content)) === true;
  }
}

const PROCESS_INDEX = memoryCallIndex();
