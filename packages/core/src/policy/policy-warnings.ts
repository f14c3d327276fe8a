import { formatPath } from '../config/format-path.ts';
import { compileToolPattern } from './glob.ts';
import { policyDocumentSchema } from './rules.ts';

/**
 * Rules of a valid policy that can never decide anything, as `path: message` lines:
 * - shadowed: an earlier rule without `when` already matches every tool this rule's
 *   patterns can match (first match wins, so this one is never reached);
 * - with `catalogue` (the tool names that exist): a pattern that matches none of them.
 * Warnings, not problems: such a policy still denies by default, but it does not do
 * what its author meant. Empty for a document that is not a valid policy.
 */
export function policyWarnings(document: unknown, catalogue?: readonly string[]): string[] {
  const parsed = policyDocumentSchema.safeParse(document);
  if (!parsed.success) return [];
  const rules = parsed.data.rules.map((rule, index) => ({
    index,
    id: rule.id ?? `rule-${index}`,
    patterns: rule.tools ?? (rule.tool === undefined ? [] : [rule.tool]),
    unconditional: rule.when === undefined,
  }));
  const warnings: string[] = [];
  for (const rule of rules) {
    const at = formatPath(['rules', rule.index]);
    const shadow = rules.find((earlier) => earlier.index < rule.index && earlier.unconditional && rule.patterns.every((p) => earlier.patterns.some((q) => covers(q, p))));
    if (shadow !== undefined) {
      warnings.push(`${at}: rule "${rule.id}" can never match: rule "${shadow.id}" (${formatPath(['rules', shadow.index])}) comes first, has no "when", and matches every tool it names`);
    }
    if (catalogue === undefined) continue;
    for (const pattern of rule.patterns) {
      const matches = compileToolPattern(pattern);
      if (!catalogue.some((name) => matches(name))) {
        warnings.push(`${at}: pattern "${pattern}" of rule "${rule.id}" matches no tool in the catalogue`);
      }
    }
  }
  return warnings;
}

/**
 * Whether every tool name `inner` matches is matched by `outer` too. Exact for an exact
 * `inner`; for a glob `inner`, only the cases that are certain (same pattern, `*`, or a
 * prefix glob whose prefix starts `inner`), so a warning is never a false alarm.
 */
function covers(outer: string, inner: string): boolean {
  if (!inner.includes('*')) return compileToolPattern(outer)(inner);
  if (outer === inner || outer === '*') return true;
  const star = outer.indexOf('*');
  return star === outer.length - 1 && inner.startsWith(outer.slice(0, -1));
}
