import { z } from 'zod';
import { formatPath } from '../config/format-path.ts';
import type { ApproverRule } from '../ledger/types.ts';
import { eligibleFrom, nonEmptyString, poolProblem, ttlSecondsSchema } from './approvers.ts';

/**
 * The policy's top-level `definitionReview` block: who re-approves a tool definition
 * that is new or changed (a tool an agent runs itself, or one a dynamic catalogue
 * serves), how many of them, and how long the review stays open.
 *
 * No `principalSelf`: a review is not on anyone's behalf (its principal is the gate's
 * reserved reviewer identity), so "the principal approves" would mean nobody. And no
 * default approvers inside the block: whoever writes one names the reviewers.
 */
export const definitionReviewSchema = z.strictObject({
  approvers: z.strictObject({
    approvers: z.array(nonEmptyString).optional(),
    roles: z.array(nonEmptyString).optional(),
  }),
  required: z.int().min(1).optional(),
  ttlSeconds: ttlSecondsSchema.optional(),
});

export type DefinitionReviewSpec = z.output<typeof definitionReviewSchema>;

/**
 * What the policy asks of a definition review; the same shape as the gate's
 * `definitionReview` option, which fills in what is left out (a week to decide).
 */
export interface DefinitionReviewRequirement {
  eligible: ApproverRule;
  requiredApprovals: number;
  /** Undefined: the gate's default (7 days). */
  ttlSeconds: number | undefined;
}

export function compileDefinitionReview(spec: DefinitionReviewSpec, problems: string[]): Readonly<DefinitionReviewRequirement> {
  const at = (...rest: (string | number)[]) => formatPath(['definitionReview', ...rest]);
  const eligible = eligibleFrom(spec.approvers, (...rest) => at('approvers', ...rest), problems);
  const requiredApprovals = spec.required ?? 1;
  const pool = poolProblem(eligible, requiredApprovals);
  if (pool !== undefined) problems.push(`${at('required')}: ${pool}`);
  return Object.freeze({ eligible, requiredApprovals, ttlSeconds: spec.ttlSeconds });
}
