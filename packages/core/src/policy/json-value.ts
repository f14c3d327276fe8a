import { formatPath } from '../config/format-path.ts';

/**
 * Checks that a parsed value is plain JSON data: finite numbers, plain objects and
 * arrays, no cycles. YAML can express `.inf`, `.nan` and self-referencing anchors,
 * none of which a JSON policy could say, so both formats load the same documents.
 */
export function jsonValueProblems(value: unknown): string[] {
  const problems: string[] = [];
  visit(value, [], new Set(), problems);
  return problems;
}

function visit(value: unknown, path: (string | number)[], ancestors: Set<object>, problems: string[]): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) problems.push(`${formatPath(path)}: numbers must be finite`);
    return;
  }
  if (typeof value !== 'object') {
    problems.push(`${formatPath(path)}: not a JSON value (${typeof value})`);
    return;
  }
  if (ancestors.has(value)) {
    problems.push(`${formatPath(path)}: circular reference`);
    return;
  }
  ancestors.add(value);
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      visit(item, [...path, i], ancestors, problems);
    });
  } else {
    for (const [key, item] of Object.entries(value)) visit(item, [...path, key], ancestors, problems);
  }
  ancestors.delete(value);
}
