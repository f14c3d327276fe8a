import type { Verdict } from '@countersign/core/policy';

/** One readable line for a policy verdict, ending with the rule's description when it has one. */
export function describeVerdict(verdict: Verdict): string {
  const line = verdictLine(verdict);
  return verdict.description === undefined ? line : `${line} — ${JSON.stringify(verdict.description)}`;
}

function verdictLine(verdict: Verdict): string {
  switch (verdict.kind) {
    case 'allow':
      return `allow (rule ${verdict.ruleId})`;
    case 'deny':
      return `deny: ${verdict.reason}${verdict.ruleId === undefined ? '' : ` (rule ${verdict.ruleId})`}`;
    case 'approve': {
      const { eligible, requiredApprovals, ttlSeconds } = verdict.approval;
      const who = [
        eligible.principalSelf ? 'the principal' : undefined,
        eligible.approvers?.length ? `approvers ${eligible.approvers.join(', ')}` : undefined,
        eligible.roles?.length ? `roles ${eligible.roles.join(', ')}` : undefined,
      ].filter((part) => part !== undefined);
      return `approve (rule ${verdict.ruleId}): ${requiredApprovals} approval${requiredApprovals === 1 ? '' : 's'} from ${who.join(' or ')}, valid ${ttlSeconds}s`;
    }
  }
}
