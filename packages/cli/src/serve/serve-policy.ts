import { EXAMPLE_POLICY_YAML, loadPolicy, loadPolicyFile, type RulePolicy } from '@countersign/core/policy';

export interface ServePolicy {
  policy: RulePolicy;
  /** The file it came from; undefined for the built-in example policy. */
  file: string | undefined;
}

/** The policy file given, or the example policy. Throws PolicyError listing every problem. */
export async function loadServePolicy(file: string | undefined): Promise<ServePolicy> {
  if (file === undefined) return { policy: loadPolicy(EXAMPLE_POLICY_YAML, 'yaml'), file: undefined };
  return { policy: await loadPolicyFile(file), file };
}
