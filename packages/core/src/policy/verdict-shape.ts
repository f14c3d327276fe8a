import type { ApproverRule } from '../ledger/types.ts';
import { MAX_APPROVAL_TTL_SECONDS, MAX_RULE_DESCRIPTION_LENGTH } from './approvers.ts';
import type { ApprovalRequirement, DenyReason, Verdict } from './types.ts';

const DENY_REASONS: ReadonlySet<string> = new Set<DenyReason>([
  'policy_deny',
  'unclassified_tool',
  'policy_error',
  'unknown_verdict',
]);

/**
 * Returns a clean copy of `value` if it is a well-formed `Verdict`, else `undefined`.
 * Any engine (built-in or plugged in) is held to the same contract as a loaded rule:
 * an `approve` must say who approves, how many (≥ 1) and for how long. Only known fields are copied, so the caller never holds
 * an object the engine can still change.
 */
export function toWellFormedVerdict(value: unknown): Verdict | undefined {
  if (!isRecord(value)) return undefined;
  const { kind, ruleId } = value;
  const description = descriptionOf(value.description);
  if (description === null) return undefined;
  switch (kind) {
    case 'allow': {
      if (!isNonEmptyString(ruleId)) return undefined;
      // Only a literal `true` counts as naming the tool: anything else keeps annotations' tightening.
      const verdict: Verdict = value.namesTool === true ? { kind, ruleId, namesTool: true } : { kind, ruleId };
      return described(verdict, description);
    }
    case 'approve': {
      if (!isNonEmptyString(ruleId)) return undefined;
      const approval = toApprovalRequirement(value.approval);
      return approval === undefined ? undefined : described({ kind, ruleId, approval }, description);
    }
    case 'deny': {
      const { reason } = value;
      if (ruleId !== undefined && !isNonEmptyString(ruleId)) return undefined;
      if (typeof reason !== 'string' || !DENY_REASONS.has(reason)) return undefined;
      return described({ kind, ruleId, reason: reason as DenyReason }, description);
    }
    default:
      return undefined;
  }
}

// The description goes last, as a spread of `{ description }` put it, but without an empty
// object spread into every verdict that has none (this runs on every propose and dispatch).
function described(verdict: Verdict, description: string | undefined): Verdict {
  if (description !== undefined) verdict.description = description;
  return verdict;
}

/** A verdict's description: absent, or a bounded non-empty string; `null` when malformed (the verdict is then refused). */
function descriptionOf(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  return isNonEmptyString(value) && value.length <= MAX_RULE_DESCRIPTION_LENGTH ? value : null;
}

function toApprovalRequirement(value: unknown): ApprovalRequirement | undefined {
  if (!isRecord(value)) return undefined;
  const { requiredApprovals, ttlSeconds } = value;
  if (!Number.isSafeInteger(requiredApprovals) || (requiredApprovals as number) < 1) return undefined;
  if (!Number.isSafeInteger(ttlSeconds) || (ttlSeconds as number) < 1) return undefined;
  if ((ttlSeconds as number) > MAX_APPROVAL_TTL_SECONDS) return undefined;
  const eligible = toApproverRule(value.eligible);
  if (eligible === undefined) return undefined;
  const { passkey } = value;
  // Anything but absent or "required" is malformed (so denied), never read as "not required".
  if (passkey !== undefined && passkey !== 'required') return undefined;
  const requirement: ApprovalRequirement = { eligible, requiredApprovals: requiredApprovals as number, ttlSeconds: ttlSeconds as number };
  if (passkey === 'required') requirement.passkey = passkey;
  return requirement;
}

function toApproverRule(value: unknown): ApproverRule | undefined {
  if (!isRecord(value)) return undefined;
  const { principalSelf, approvers, roles } = value;
  if (principalSelf !== undefined && typeof principalSelf !== 'boolean') return undefined;
  if (approvers !== undefined && !isStringList(approvers)) return undefined;
  if (roles !== undefined && !isStringList(roles)) return undefined;
  if (principalSelf !== true && (approvers?.length ?? 0) === 0 && (roles?.length ?? 0) === 0) return undefined;

  const rule: ApproverRule = {};
  if (principalSelf !== undefined) rule.principalSelf = principalSelf;
  if (approvers !== undefined) rule.approvers = [...approvers];
  if (roles !== undefined) rule.roles = [...roles];
  return rule;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isNonEmptyString);
}
