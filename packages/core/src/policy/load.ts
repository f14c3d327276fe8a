import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { PolicyError } from './errors.ts';
import { parsePolicyJson } from './json-text.ts';
import { jsonValueProblems } from './json-value.ts';
import { RulePolicy } from './rule-policy.ts';
import { parsePolicyYaml } from './yaml-text.ts';

export type PolicyFormat = 'json' | 'yaml';

/** Parses and validates policy text. Throws `PolicyError` (`invalid_policy`) listing every problem. */
export function loadPolicy(text: string, format: PolicyFormat): RulePolicy {
  if (typeof text !== 'string') throw new PolicyError('invalid_policy', ['(root): policy text must be a string']);
  let parsed: ReturnType<typeof parsePolicyJson>;
  if (format === 'json') parsed = parsePolicyJson(text);
  else if (format === 'yaml') parsed = parsePolicyYaml(text);
  else throw new PolicyError('invalid_policy', [`(root): unsupported policy format ${JSON.stringify(format)}`]);

  if (!parsed.ok) throw new PolicyError('invalid_policy', parsed.problems);
  const shape = jsonValueProblems(parsed.value);
  if (shape.length > 0) throw new PolicyError('invalid_policy', shape);
  return new RulePolicy(parsed.value);
}

const FORMAT_BY_EXTENSION: Readonly<Record<string, PolicyFormat>> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };

/**
 * Reads a policy file; the format comes from the extension (.json, .yaml, .yml).
 * A missing/unreadable file, an unknown extension or bytes that are not UTF-8 are
 * `unreadable_policy`; a readable file with a bad document is `invalid_policy`.
 */
export async function loadPolicyFile(path: string): Promise<RulePolicy> {
  const format = FORMAT_BY_EXTENSION[extname(path).toLowerCase()];
  if (format === undefined) {
    throw new PolicyError('unreadable_policy', [`${path}: unknown policy file extension (use .json, .yaml or .yml)`]);
  }
  let text: string;
  try {
    // `fatal`: mis-encoded bytes must not be replaced by U+FFFD and then matched as a different name.
    text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(path));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new PolicyError('unreadable_policy', [`${path}: ${reason}`], { cause: error });
  }
  return loadPolicy(text, format);
}
