import type { ApproverRule } from '../ledger/types.ts';

/** An authenticated person, as the server's authentication established them. */
export interface Approver {
  id: string;
  roles?: readonly string[] | undefined;
}

/** Whether `approver` may decide a request with this rule for a call acting for `principal`. */
export function mayDecide(rule: ApproverRule, approver: Approver, principal: string): boolean {
  if (rule.principalSelf === true && approver.id === principal) return true;
  if (rule.approvers?.includes(approver.id)) return true;
  const roles = approver.roles ?? [];
  return rule.roles?.some((role) => roles.includes(role)) ?? false;
}
