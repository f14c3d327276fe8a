import { DEFAULT_APPROVAL_TTL_SECONDS, DEFAULT_ELIGIBLE_APPROVERS } from './rules.ts';
import type { ApprovalRequirement, Verdict } from './types.ts';

/**
 * Who approves a call that only its tool's `destructiveHint` sent to approval: the
 * approve rule's defaults (one holder of the `approver` role, the default lifetime).
 */
export const DESTRUCTIVE_APPROVAL: Readonly<ApprovalRequirement> = Object.freeze({
  eligible: DEFAULT_ELIGIBLE_APPROVERS,
  requiredApprovals: 1,
  ttlSeconds: DEFAULT_APPROVAL_TTL_SECONDS,
});

/**
 * Tool annotations are the tool author's claims, so they may only tighten a verdict:
 * an `allow` for a tool whose pinned definition says `destructiveHint: true` (and not
 * `readOnlyHint: true`) needs approval, unless the allowing rule names the tool exactly
 * (an operator who wrote `tool: fs__write_file, verdict: allow` meant it; `fs__*` did not
 * think about every tool behind it). Nothing loosens: `readOnlyHint` never turns
 * `approve` into `allow`, and `deny` stays `deny`. Pass the annotations of the PINNED
 * definition (the one admitted for the call), never what a client sent.
 */
export function tightenByAnnotations(verdict: Verdict, annotations: unknown): Verdict {
  if (verdict.kind !== 'allow' || verdict.namesTool === true) return verdict;
  if (!isDestructive(annotations)) return verdict;
  const approval = DESTRUCTIVE_APPROVAL;
  return {
    kind: 'approve',
    ruleId: verdict.ruleId,
    approval: { eligible: { ...approval.eligible, roles: [...(approval.eligible.roles ?? [])] }, requiredApprovals: approval.requiredApprovals, ttlSeconds: approval.ttlSeconds },
    tightenedBy: 'destructiveHint',
  };
}

function isDestructive(annotations: unknown): boolean {
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) return false;
  const hints = annotations as { destructiveHint?: unknown; readOnlyHint?: unknown };
  return hints.destructiveHint === true && hints.readOnlyHint !== true;
}
