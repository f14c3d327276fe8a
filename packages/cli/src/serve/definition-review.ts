import { DEFAULT_DEFINITION_REVIEW, type DefinitionReviewRule } from '@countersign/core/gate';
import type { RulePolicy } from '@countersign/core/policy';
import type { AuthConfig } from '@countersign/server';

/** Who reviews definitions on this server, with the gate's defaults filled in (for the gate and the startup report). */
export interface ServeDefinitionReview extends DefinitionReviewRule {
  requiredApprovals: number;
  ttlSeconds: number;
  /** Whether the policy file named them, or the gate's default (role admin) applies. */
  from: 'policy' | 'default';
}

/** The policy's `definitionReview`, or the gate's default when the policy has none. */
export function definitionReviewOf(policy: RulePolicy): ServeDefinitionReview {
  const named = policy.definitionReview;
  if (named === undefined) return { ...DEFAULT_DEFINITION_REVIEW, eligible: { ...DEFAULT_DEFINITION_REVIEW.eligible }, from: 'default' };
  return {
    eligible: named.eligible,
    requiredApprovals: named.requiredApprovals,
    ttlSeconds: named.ttlSeconds ?? DEFAULT_DEFINITION_REVIEW.ttlSeconds,
    from: 'policy',
  };
}

/** "role admin", "roles security, admin or approver ada". */
export function describeReviewers(review: DefinitionReviewRule): string {
  const roles = review.eligible.roles ?? [];
  const ids = review.eligible.approvers ?? [];
  const parts = [
    roles.length === 0 ? undefined : `${roles.length === 1 ? 'role' : 'roles'} ${roles.join(', ')}`,
    ids.length === 0 ? undefined : `${ids.length === 1 ? 'approver' : 'approvers'} ${ids.join(', ')}`,
  ].filter((part) => part !== undefined);
  return parts.join(' or ');
}

/**
 * Whether anyone configured can decide a definition review. Unknowable behind a proxy
 * that sends roles in a header (the proxy decides who holds which role), so that counts as yes.
 */
export function someoneCanReview(auth: Pick<AuthConfig, 'approvers' | 'trustedProxy'>, review: DefinitionReviewRule): boolean {
  if (auth.trustedProxy?.rolesHeader !== undefined) return true;
  const roles = new Set(review.eligible.roles ?? []);
  const ids = new Set(review.eligible.approvers ?? []);
  const eligible = auth.approvers.filter((a) => ids.has(a.id) || a.roles.some((role) => roles.has(role)));
  return eligible.length >= (review.requiredApprovals ?? 1);
}
