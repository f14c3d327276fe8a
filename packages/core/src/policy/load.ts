import { type ConfigFormat, parseConfigText, readConfigFile } from '../config/config-text.ts';
import { PolicyError } from './errors.ts';
import { jsonValueProblems } from './json-value.ts';
import { RulePolicy } from './rule-policy.ts';

export type PolicyFormat = ConfigFormat;

/** Parses and validates policy text. Throws `PolicyError` (`invalid_policy`) listing every problem. */
export function loadPolicy(text: string, format: PolicyFormat): RulePolicy {
  const parsed = parseConfigText(text, format);
  if (!parsed.ok) throw new PolicyError('invalid_policy', parsed.problems);
  const shape = jsonValueProblems(parsed.value);
  if (shape.length > 0) throw new PolicyError('invalid_policy', shape);
  return new RulePolicy(parsed.value);
}

/**
 * Reads a policy file; the format comes from the extension (.json, .yaml, .yml).
 * A missing/unreadable file, an unknown extension or bytes that are not UTF-8 are
 * `unreadable_policy`; a readable file with a bad document is `invalid_policy`.
 */
export async function loadPolicyFile(path: string): Promise<RulePolicy> {
  const file = await readConfigFile(path, 'policy');
  if (!file.ok) throw new PolicyError('unreadable_policy', [file.problem], { cause: file.cause });
  return loadPolicy(file.text, file.format);
}
