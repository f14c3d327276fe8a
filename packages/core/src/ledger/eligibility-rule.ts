import type { ApproverRule, EligibilityFilter } from './types.ts';

/**
 * Whether the person described by `who` may decide a request with `rule` about a call
 * acting for `principal`. One rule for every store and for the gate (every SQL
 * implementation of the `eligibleFor` listing filter must mean exactly this):
 *
 * - The call's own principal decides only when the rule says `principalSelf: true`;
 *   otherwise they are refused even if a role or their name matches, because
 *   "principalSelf: false" must mean nobody approves their own agent's call.
 * - Anyone else decides when the rule names them or one of their roles.
 */
export function eligibleUnder(rule: ApproverRule, who: EligibilityFilter, principal: string): boolean {
  if (who.principals.includes(principal)) return rule.principalSelf === true;
  if (rule.approvers?.includes(who.approverId) === true) return true;
  return rule.roles?.some((role) => who.roles.includes(role)) ?? false;
}
