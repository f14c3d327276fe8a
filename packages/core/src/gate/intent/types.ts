import type { ApproverRule } from '../../ledger/types.ts';

// Structural copies of @countersign/semantic's matcher interface (its
// src/matcher/types.ts): core stays free of the semantic package and its
// dependencies, and any object of that shape plugs in here.

/** The tool as the matcher sees it: from the pinned definition only. */
export interface IntentTool {
  name: string;
  description?: string | undefined;
  parameters?: Record<string, { description?: string | undefined; type?: string | undefined }> | undefined;
  server?: string | undefined;
}

export interface IntentMatchInput {
  task: string;
  tool: IntentTool;
  catalogue: readonly IntentTool[];
  /** The assistant's offers the user only accepted ("ok sure"): a tool that fits only these is not the user's need. */
  offered?: readonly string[] | undefined;
}

export type IntentDecision = 'match' | 'mismatch' | 'uncertain';

export interface IntentMatchResult {
  decision: IntentDecision;
  score: number;
  matcher: string;
  detail?: Record<string, unknown> | undefined;
}

/** A task-to-tool matcher (`TaskToolMatcher` in @countersign/semantic). */
export interface IntentMatcher {
  readonly id: string;
  match(input: IntentMatchInput, signal?: AbortSignal): Promise<IntentMatchResult>;
}

/**
 * The optional intent stage of the gate. It runs at propose time only, after policy, and
 * can only tighten: `mismatch` denies (`intent_mismatch`), `uncertain` denies or routes
 * the call to a person, `match` leaves the policy verdict as it is.
 */
export interface IntentConfig {
  matcher: IntentMatcher;
  /**
   * What an `uncertain` answer (matcher timed out, failed, answered nonsense, or the call
   * carried no task) does: `deny` (default) refuses with `intent_mismatch`; `approve`
   * routes the call to a person as if policy had said `approve`.
   */
  uncertain?: 'deny' | 'approve' | undefined;
  /** How long one match may take before it counts as `uncertain`. Default 5000 ms. */
  timeoutMs?: number | undefined;
  /**
   * Resolves a call's `taskId` to its task sentence (a stored, encrypted task summary).
   * Undefined (or an unknown id) makes the answer `uncertain`: fail closed.
   */
  resolveTask?: ((taskId: string, call: { runId: string; sessionId: string; principal: string }) => Promise<string | undefined>) | undefined;
  /** Who approves a call routed to a person by `uncertain: approve`. Default: role `admin`, one approver, 15 minutes. */
  approval?: { eligible?: ApproverRule | undefined; requiredApprovals?: number | undefined; ttlSeconds?: number | undefined } | undefined;
  /**
   * The tools to rank the called tool against (default: the gate catalogue's listing).
   * Each as the matcher sees it: from the pinned definition.
   */
  catalogue?: (() => Promise<readonly IntentTool[]>) | undefined;
  /**
   * How long the catalogue listing is reused, in ms (default 10 000): listing reads every
   * registered definition from the store, too much for every call. The called tool itself
   * is always its current pinned definition; only the tools it is ranked against may be
   * this old.
   */
  catalogueTtlMs?: number | undefined;
  /**
   * The server (MCP upstream) a tool name belongs to, so a matcher can rank the tool among
   * its own server's tools. E.g. a namespaced gateway's `github__list_runs` → `github`.
   */
  serverOf?: ((toolName: string) => string | undefined) | undefined;
}

/** What the audit chain keeps of one intent check: never the task text. */
export interface IntentRecord {
  /** SHA-256 (hex) of the task sentence; absent when the call carried none. */
  taskDigest: string | null;
  matcher: string;
  score: number;
  decision: IntentDecision;
  /** What the stage did: `none` (policy stands), `deny`, or `approve` (routed to a person). */
  effect: 'none' | 'deny' | 'approve';
  /** Why the answer is `uncertain` (timeout, error, no task...), when the stage knows. */
  problem?: string | undefined;
}
