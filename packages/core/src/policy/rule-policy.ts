import type { ApproverRule } from '../ledger/types.ts';
import { PolicyError } from './errors.ts';
import { policyWarnings } from './policy-warnings.ts';
import type { DefinitionReviewRequirement } from './definition-review.ts';
import { type CompiledRule, validatePolicyDocument } from './rules.ts';
import type { ApprovalRequirement, PolicyEngine, PolicyInput, ToolVisibility, Verdict } from './types.ts';

/**
 * The built-in engine: an ordered list of rules, first match wins. A rule matches
 * when the tool name matches one of its patterns AND (if it has `when`) the
 * arguments satisfy its JSON Schema. No match is `deny` / `unclassified_tool`.
 */
export class RulePolicy implements PolicyEngine {
  readonly #rules: readonly CompiledRule[];
  readonly #definitionReview: Readonly<DefinitionReviewRequirement> | undefined;
  readonly #sharedTools: Readonly<Record<string, readonly string[]>> | undefined;
  // A copy of the validated document, for `warnings` (never consulted when deciding).
  readonly #document: unknown;

  /** Validates `document` (already parsed from YAML/JSON); throws `PolicyError` `invalid_policy`. */
  constructor(document: unknown) {
    const result = validatePolicyDocument(document);
    if (!result.ok) throw new PolicyError('invalid_policy', result.problems);
    this.#rules = result.rules;
    this.#definitionReview = result.definitionReview;
    this.#sharedTools = result.sharedTools;
    this.#document = structuredClone(document);
  }

  /** Rules that can never match (see `policyWarnings`); `catalogue`: the tool names that exist. */
  warnings(catalogue?: readonly string[]): string[] {
    return policyWarnings(this.#document, catalogue);
  }

  /**
   * Who re-approves a new or changed tool definition (the document's `definitionReview`),
   * for the gate's `definitionReview` option; undefined when the document has none, which
   * leaves the gate's default (one holder of the role `admin`). A fresh copy each time.
   */
  get definitionReview(): DefinitionReviewRequirement | undefined {
    const review = this.#definitionReview;
    if (review === undefined) return undefined;
    return { eligible: copyEligible(review.eligible), requiredApprovals: review.requiredApprovals, ttlSeconds: review.ttlSeconds };
  }

  /**
   * Registered tools shared with agents other than the one that registered them (the
   * document's `sharedTools`), for the gate's `sharedTools` option. A fresh copy each time.
   */
  get sharedTools(): Record<string, string[]> | undefined {
    const shared = this.#sharedTools;
    return shared === undefined ? undefined : Object.fromEntries(Object.entries(shared).map(([tool, agents]) => [tool, [...agents]]));
  }

  /** Rule ids in evaluation order (for listings and audit). */
  get ruleIds(): string[] {
    return this.#rules.map((rule) => rule.id);
  }

  verdictFor(input: PolicyInput): Verdict {
    // Callers outside TypeScript can pass anything; a nameless call is never classifiable.
    if (typeof input?.toolName !== 'string') return { kind: 'deny', ruleId: undefined, reason: 'policy_error' };

    for (const rule of this.#rules) {
      if (!rule.matchesTool(input.toolName)) continue;
      if (rule.matchesArgs !== undefined && !rule.matchesArgs(input.args)) continue;
      return verdictOf(rule, input.toolName);
    }
    return { kind: 'deny', ruleId: undefined, reason: 'unclassified_tool' };
  }

  /**
   * Hidden only when no arguments can escape `deny`: the first rule that matches the tool
   * whatever its arguments (no `when`) denies it, with only `deny` rules before it, or no
   * rule matches it at all. A rule with `when` is assumed satisfiable, so a tool that some
   * `when` may allow stays visible (and each call is still decided on its arguments).
   * Rules do not read the principal; the parameter is for engines that do.
   */
  toolVisibility(toolName: string, _principal: string): ToolVisibility {
    if (typeof toolName !== 'string') return { visible: false, ruleId: undefined, reason: 'policy_error' };
    for (const rule of this.#rules) {
      if (!rule.matchesTool(toolName)) continue;
      if (rule.outcome.kind !== 'deny') return { visible: true };
      if (rule.matchesArgs === undefined) return { visible: false, ruleId: rule.id, reason: 'policy_deny' };
    }
    return { visible: false, ruleId: undefined, reason: 'unclassified_tool' };
  }
}

/** A fresh verdict per call, so no caller can alter the rule it came from. */
function verdictOf(rule: CompiledRule, toolName: string): Verdict {
  const { outcome, id } = rule;
  let verdict: Verdict;
  switch (outcome.kind) {
    case 'allow':
      verdict = { kind: 'allow', ruleId: id, namesTool: rule.namesTool(toolName) };
      break;
    case 'deny':
      verdict = { kind: 'deny', ruleId: id, reason: 'policy_deny' };
      break;
    case 'approve':
      verdict = { kind: 'approve', ruleId: id, approval: copyApproval(outcome.approval) };
      break;
  }
  // Last, where a spread put it; assigned, so a rule without one allocates no empty object.
  if (rule.description !== undefined) verdict.description = rule.description;
  return verdict;
}

function copyApproval(approval: Readonly<ApprovalRequirement>): ApprovalRequirement {
  const copy: ApprovalRequirement = { eligible: copyEligible(approval.eligible), requiredApprovals: approval.requiredApprovals, ttlSeconds: approval.ttlSeconds };
  if (approval.passkey !== undefined) copy.passkey = approval.passkey;
  return copy;
}

function copyEligible(eligible: Readonly<ApproverRule>): ApproverRule {
  // Assignments in the order the spreads had (no empty objects on every approve verdict).
  const copy: ApproverRule = {};
  if (eligible.principalSelf !== undefined) copy.principalSelf = eligible.principalSelf;
  if (eligible.approvers !== undefined) copy.approvers = [...eligible.approvers];
  if (eligible.roles !== undefined) copy.roles = [...eligible.roles];
  return copy;
}
