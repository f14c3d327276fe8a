export type { DefinitionReviewRequirement } from './definition-review.ts';
export { EXAMPLE_POLICY_YAML } from './example-policy.ts';
export { PolicyError, type PolicyErrorCode } from './errors.ts';
export { loadPolicy, loadPolicyFile, type PolicyFormat } from './load.ts';
export { RulePolicy } from './rule-policy.ts';
export { type AskPolicyOptions, askPolicy } from './ask-policy.ts';
export type { ApprovalRequirement, DenyReason, PolicyEngine, PolicyInput, ToolVisibility, Verdict } from './types.ts';
export { compileToolPattern, type ToolMatcher } from './glob.ts';
