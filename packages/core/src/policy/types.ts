import type { ApproverRule } from '../ledger/types.ts';

/** The three classes every tool call falls into (invariant 1). Anything else is treated as `deny`. */
export type VerdictKind = 'allow' | 'approve' | 'deny';

/** What a policy decides on: one proposed call, as recorded in the ledger. */
export interface PolicyInput {
  toolName: string;
  /** Already strictly parsed (JSON values only); engines must treat it as read-only. */
  args: unknown;
  /** On whose behalf the agent acts. */
  principal: string;
  runId: string;
  sessionId: string;
  /** Digest of the pinned tool definition, when the caller knows it. */
  definitionDigest?: string | undefined;
}

/** Why a call was denied. Only `policy_deny` comes from a rule; the others are the fail-closed paths. */
export type DenyReason = 'policy_deny' | 'unclassified_tool' | 'policy_error' | 'unknown_verdict';

/** Who must approve an `approve` call, how many of them, and for how long the approval holds. */
export interface ApprovalRequirement {
  eligible: ApproverRule;
  /** n in n-of-m: distinct approvers needed. At least 1; default 1. */
  requiredApprovals: number;
  /** Lifetime of the approval request and of the token minted from it, in seconds. Default 900. */
  ttlSeconds: number;
  /** `required`: each decision must be signed with the approver's registered passkey. */
  passkey?: 'required' | undefined;
}

export type Verdict =
  | {
      kind: 'allow';
      ruleId: string;
      /**
       * The rule names this tool exactly (not through a `*` pattern). Only an explicit
       * allow keeps a tool whose pinned definition says `destructiveHint` from needing
       * approval; absent (any other engine) counts as not explicit.
       */
      namesTool?: boolean | undefined;
      /** The rule's human description (`RuleDescribed`). */
      description?: string | undefined;
    }
  | {
      kind: 'approve';
      ruleId: string;
      approval: ApprovalRequirement;
      /** Set by the gate, never by an engine: an `allow` the tool's annotations (or an uncertain intent check) tightened to `approve`. */
      tightenedBy?: 'destructiveHint' | 'intent' | undefined;
      /** The rule's human description: shown to approvers as why they are asked. */
      description?: string | undefined;
    }
  /** `ruleId` is undefined when no rule produced the denial (unclassified tool, engine error, bad verdict). */
  | { kind: 'deny'; ruleId: string | undefined; reason: DenyReason; description?: string | undefined };

/**
 * Whether a principal can get anything but `deny` for a tool, asked before any call
 * exists (a gateway's `tools/list`). `visible: false` only when every possible argument
 * is denied; the gate still decides each call, so a visible tool may yet be denied.
 */
export type ToolVisibility = { visible: true } | { visible: false; ruleId: string | undefined; reason: DenyReason };

/**
 * The plug-in point for policy engines. `RulePolicy` (ordered rules from a YAML/JSON
 * document) is the built-in one; an adapter for Cedar or OPA can implement this same
 * interface later, returning a promise when the decision is remote. Callers must go
 * through `askPolicy`, which turns a throw, a rejection or a malformed verdict into
 * `deny`, so an engine bug can never allow a call.
 */
export interface PolicyEngine {
  verdictFor(input: PolicyInput): Verdict | Promise<Verdict>;
  /**
   * Optional: whether `toolName` is denied for every argument for `principal`. An engine
   * without it shows every tool (it cannot say); callers go through `toolVisibilitySafely`.
   */
  toolVisibility?(toolName: string, principal: string): ToolVisibility | Promise<ToolVisibility>;
}
