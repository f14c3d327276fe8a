export type { DefinitionReviewRequirement } from './definition-review.ts';
export { EXAMPLE_POLICY_YAML } from './example-policy.ts';
export { PolicyError, type PolicyErrorCode } from './errors.ts';
export { loadPolicy, loadPolicyFile, type PolicyFormat } from './load.ts';
export { policyWarnings } from './policy-warnings.ts';
export { RulePolicy } from './rule-policy.ts';
export { type AskPolicyOptions, askPolicy } from './ask-policy.ts';
export { toolVisibilitySafely } from './safe-visibility.ts';
export { DESTRUCTIVE_APPROVAL, tightenByAnnotations } from './annotations.ts';
export type {
  ApprovalRequirement,
  DenyReason,
  PolicyEngine,
  PolicyInput,
  ToolVisibility,
  Verdict,
  VerdictKind,
} from './types.ts';
export { compileToolPattern, type ToolMatcher } from './glob.ts';
