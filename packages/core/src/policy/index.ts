export type { DefinitionReviewRequirement } from './definition-review.ts';
export { EXAMPLE_POLICY_YAML } from './example-policy.ts';
export { PolicyError, type PolicyErrorCode } from './errors.ts';
export { loadPolicy, loadPolicyFile, type PolicyFormat } from './load.ts';
export { RulePolicy } from './rule-policy.ts';
export { type DecideSafelyOptions, decideSafely } from './safe-decide.ts';
export type {
  ApprovalRequirement,
  DenyReason,
  PolicyEngine,
  PolicyInput,
  Verdict,
  VerdictKind,
} from './types.ts';
