import type { z } from 'zod';
import { closestKey } from './did-you-mean.ts';
import { formatPath } from './format-path.ts';

/**
 * The one way zod issues become messages an operator or client reads: `path: problem`,
 * the path in `formatPath` form, one message per unknown key. Parse with
 * `{ reportInput: true }` so a missing field reads as "required" rather than zod's
 * "expected string, received undefined". Never quotes the input itself: a config or a
 * request body may carry secrets.
 */
export function describeZodIssues(issues: readonly z.core.$ZodIssue[], knownKeys?: Iterable<string>): string[] {
  const known = knownKeys === undefined ? undefined : [...knownKeys];
  return issues.flatMap((issue) => describeZodIssue(issue, known));
}

/** `knownKeys`: the document's key names (`schemaKeys`), for "did you mean" after an unknown key. */
export function describeZodIssue(issue: z.core.$ZodIssue, knownKeys?: readonly string[]): string[] {
  const where = formatPath(issue.path);
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && 'input' in issue && issue.input === undefined) {
    return [`${where}: required`];
  }
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => {
        const near = knownKeys === undefined ? undefined : closestKey(key, knownKeys);
        return `${formatPath([...issue.path, key])}: unknown key${near === undefined ? '' : `; did you mean \`${near}\`?`}`;
      });
    case 'invalid_type':
      return 'input' in issue ? [`${where}: expected ${issue.expected}, got ${describeType(issue.input)}`] : [`${where}: ${issue.message}`];
    case 'too_small':
      if (issue.origin === 'number' || issue.origin === 'int') return [`${where}: must be at least ${issue.minimum}`];
      return [`${where}: ${issue.message}`];
    case 'too_big':
      if (issue.origin === 'number' || issue.origin === 'int') return [`${where}: must be at most ${issue.maximum}`];
      return [`${where}: ${issue.message}`];
    default:
      return [`${where}: ${issue.message}`];
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
