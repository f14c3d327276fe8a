import { z } from 'zod';
import type { ApproverRule } from '../ledger/types.ts';

/** Upper bound on any approval lifetime, so a typo cannot mint near-permanent approvals. */
export const MAX_APPROVAL_TTL_SECONDS = 30 * 24 * 60 * 60;

/** Longest rule description: a sentence or two for the approver, not a document. */
export const MAX_RULE_DESCRIPTION_LENGTH = 500;

export const nonEmptyString = z.string().min(1, { error: 'must not be empty' });
export const ttlSecondsSchema = z.int().min(1).max(MAX_APPROVAL_TTL_SECONDS);

/** `approvers:` of an approval block, as written in the policy. */
export const approverRuleSchema = z.strictObject({
  principalSelf: z.boolean().optional(),
  approvers: z.array(nonEmptyString).optional(),
  roles: z.array(nonEmptyString).optional(),
});

export type ApproverRuleSpec = z.output<typeof approverRuleSchema>;

/** A path below the `approvers` object being read, formatted for a problem message. */
export type PathAt = (...rest: (string | number)[]) => string;

/**
 * The eligible approvers an `approvers` block names, with duplicates reported. A block
 * that names no way to approve is a problem: it would leave every request stuck.
 */
export function eligibleFrom(spec: ApproverRuleSpec, at: PathAt, problems: string[]): Readonly<ApproverRule> {
  const eligible: ApproverRule = {};
  if (spec.principalSelf !== undefined) eligible.principalSelf = spec.principalSelf;
  for (const key of ['approvers', 'roles'] as const) {
    const list = spec[key];
    if (list === undefined) continue;
    const seen = new Set<string>();
    list.forEach((entry, i) => {
      if (seen.has(entry)) problems.push(`${at(key, i)}: duplicate "${entry}"`);
      seen.add(entry);
    });
    eligible[key] = Object.freeze([...seen]) as string[];
  }

  const anyWay =
    eligible.principalSelf === true || (eligible.approvers?.length ?? 0) > 0 || (eligible.roles?.length ?? 0) > 0;
  if (!anyWay) {
    problems.push(`${at()}: must name at least one way to approve (principalSelf: true, or non-empty approvers or roles)`);
  }
  return Object.freeze(eligible);
}

/**
 * With only named approvers (no roles) the pool is countable: more required approvals
 * than people who may give them would leave every request stuck until it expires.
 */
export function poolProblem(eligible: Readonly<ApproverRule>, requiredApprovals: number): string | undefined {
  if (eligible.roles !== undefined && eligible.roles.length > 0) return undefined;
  const pool = (eligible.approvers?.length ?? 0) + (eligible.principalSelf === true ? 1 : 0);
  return pool > 0 && requiredApprovals > pool ? `${requiredApprovals} approvals required but only ${pool} eligible` : undefined;
}
