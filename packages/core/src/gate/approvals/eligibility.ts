import { eligibleUnder } from '../../ledger/eligibility-rule.ts';
import type { ApproverRule, EligibilityFilter } from '../../ledger/types.ts';

/** An authenticated person, as the server's authentication established them. */
export interface Approver {
  id: string;
  roles?: readonly string[] | undefined;
  /**
   * The principals (end users / tenants that agents act for) this approver IS, e.g.
   * approver `fiona@corp` who is also principal `user:42`. The approver's own `id`
   * always counts as one of them, so an approver and a principal with the same name
   * are the same person unless a rule says otherwise.
   */
  principals?: readonly string[] | undefined;
}

/** What the ledger needs to filter requests for `approver` (see `eligibleUnder`). */
export function eligibilityOf(approver: Approver): EligibilityFilter {
  const principals = approver.principals ?? [];
  return {
    approverId: approver.id,
    roles: [...(approver.roles ?? [])],
    principals: principals.includes(approver.id) ? [...principals] : [approver.id, ...principals],
  };
}

/**
 * Whether `approver` may decide a request with this rule for a call acting for
 * `principal`: the call's own principal only under `principalSelf: true`, anyone
 * else when named or holding a listed role.
 */
export function mayDecide(rule: ApproverRule, approver: Approver, principal: string): boolean {
  return eligibleUnder(rule, eligibilityOf(approver), principal);
}
