import { z } from 'zod';
import type { ApproverRule } from '../ledger/types.ts';
import { approverRuleSchema, eligibleFrom, MAX_RULE_DESCRIPTION_LENGTH, nonEmptyString, poolProblem, ttlSecondsSchema } from './approvers.ts';

export { MAX_RULE_DESCRIPTION_LENGTH };
import { type ArgsPredicate, compileWhen, createArgsAjv } from './args-schema.ts';
import { formatPath } from '../config/format-path.ts';
import { describeZodIssues } from '../config/zod-issues.ts';
import { schemaKeys } from '../config/schema-keys.ts';
import { compileToolPattern, type ToolMatcher } from './glob.ts';
import { compileDefinitionReview, type DefinitionReviewRequirement, definitionReviewSchema } from './definition-review.ts';
import type { ApprovalRequirement } from './types.ts';

export const DEFAULT_APPROVAL_TTL_SECONDS = 900;
/**
 * Who may approve when an `approve` rule names nobody: any authenticated holder of the
 * `approver` role. Deliberately not `principalSelf`, so that an approve rule written
 * without an `approval` block never lets the agent's own user wave a call through.
 */
export const DEFAULT_ELIGIBLE_APPROVERS: Readonly<ApproverRule> = Object.freeze({
  roles: Object.freeze(['approver']) as string[],
});

const VERDICTS = ['allow', 'approve', 'deny'] as const;
const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

const ttlSeconds = ttlSecondsSchema;
// Kept as the caller's own object (not copied by zod) so it reaches ajv exactly as written.
const jsonSchemaObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  { error: 'expected a JSON Schema object' },
);

const approvalSchema = z.strictObject({
  approvers: approverRuleSchema.optional(),
  required: z.int().min(1).optional(),
  ttlSeconds: ttlSeconds.optional(),
  passkey: z.literal('required', { error: 'expected "required"' }).optional(),
});

const ruleSchema = z.strictObject({
  id: z
    .string()
    .max(128)
    .regex(RULE_ID, { error: 'must start with a letter or digit and use only letters, digits and . _ : -' })
    .optional(),
  /** Shown to approvers as why they are asked: one or two plain sentences. */
  description: z.string().trim().min(1, { error: 'must not be empty' }).max(MAX_RULE_DESCRIPTION_LENGTH).optional(),
  tool: nonEmptyString.optional(),
  tools: z.array(nonEmptyString).min(1, { error: 'must not be empty' }).optional(),
  when: jsonSchemaObject.optional(),
  verdict: z.enum(VERDICTS, { error: `expected ${VERDICTS.map((v) => `"${v}"`).join(' | ')}` }),
  approval: approvalSchema.optional(),
});

/** The policy document, as written in YAML or JSON (version 1). */
export const policyDocumentSchema = z.strictObject({
  version: z.literal(1, { error: 'expected 1' }),
  defaults: z.strictObject({ approvalTtlSeconds: ttlSeconds.optional() }).optional(),
  rules: z.array(ruleSchema),
  definitionReview: definitionReviewSchema.optional(),
  /**
   * Tools an agent registered that other agents may use too: tool name to agent ids
   * (`"*"`: every agent). Without an entry a registered tool is its registering agent's only.
   */
  sharedTools: z.record(nonEmptyString, z.array(nonEmptyString).min(1, { error: 'must name at least one agent' })).optional(),
});

export type PolicyDocument = z.input<typeof policyDocumentSchema>;
export type PolicyRuleSpec = z.input<typeof ruleSchema>;

/** What a matching rule decides, fixed at load time. */
export type RuleOutcome =
  | { kind: 'allow' }
  | { kind: 'deny' }
  | { kind: 'approve'; approval: Readonly<ApprovalRequirement> };

export interface CompiledRule {
  readonly id: string;
  /** The rule's human description, carried by its verdicts. */
  readonly description: string | undefined;
  readonly index: number;
  readonly matchesTool: ToolMatcher;
  /** The rule lists this exact name (a pattern without `*`), not only a glob that matches it. */
  readonly namesTool: ToolMatcher;
  /** Absent when the rule has no `when`: any arguments match. */
  readonly matchesArgs: ArgsPredicate | undefined;
  readonly outcome: RuleOutcome;
}

export type PolicyValidation =
  | {
      ok: true;
      rules: readonly CompiledRule[];
      /** The document's `definitionReview` block; undefined leaves the gate's default. */
      definitionReview: DefinitionReviewRequirement | undefined;
      /** The document's `sharedTools` block; undefined shares nothing. */
      sharedTools: Readonly<Record<string, readonly string[]>> | undefined;
    }
  | { ok: false; problems: string[] };

/**
 * Validates a parsed policy document and compiles its rules. Collects every problem
 * (as `path: message`) rather than stopping at the first, so one load reports them all.
 */
export function validatePolicyDocument(value: unknown): PolicyValidation {
  const parsed = policyDocumentSchema.safeParse(value, { reportInput: true });
  if (!parsed.success) return { ok: false, problems: [...describeZodIssues(parsed.error.issues, policyKeys()), ...ruleProblemsOf(value)] };
  return compileDocument(parsed.data);
}

/**
 * When the document as a whole does not parse, the rules that do are still checked
 * (duplicate ids, patterns, `when` schemas, approver pools), so one run reports every
 * problem instead of the next one surfacing only after the first is fixed.
 */
function ruleProblemsOf(value: unknown): string[] {
  const lenient = z
    .looseObject({ defaults: policyDocumentSchema.shape.defaults.catch(undefined), rules: z.array(z.unknown()) })
    .safeParse(value);
  if (!lenient.success) return [];
  // Rules that do not parse were reported above; the others keep their positions for the paths.
  const rules = lenient.data.rules.map((rule) => ruleSchema.safeParse(rule));
  const compiled = compileDocument({ version: 1, defaults: lenient.data.defaults, rules: rules.map((r) => (r.success ? r.data : undefined)) });
  return compiled.ok ? [] : compiled.problems;
}

type ParsedDocument = Omit<z.output<typeof policyDocumentSchema>, 'rules'> & { rules: Array<z.output<typeof ruleSchema> | undefined> };

let knownPolicyKeys: Set<string> | undefined;
/** Every key a policy document may use, for "did you mean" (computed once, on the first bad document). */
function policyKeys(): Set<string> {
  knownPolicyKeys ??= schemaKeys(policyDocumentSchema);
  return knownPolicyKeys;
}

function compileDocument(doc: ParsedDocument): PolicyValidation {
  const problems: string[] = [];
  const ajv = createArgsAjv();
  const defaultTtl = doc.defaults?.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS;
  const firstIndexById = new Map<string, number>();
  const rules: CompiledRule[] = [];

  doc.rules.forEach((rule, index) => {
    if (rule === undefined) return;
    const at = (...rest: (string | number)[]) => formatPath(['rules', index, ...rest]);
    const id = rule.id ?? `rule-${index}`;
    const seenAt = firstIndexById.get(id);
    if (seenAt === undefined) firstIndexById.set(id, index);
    else problems.push(`${at('id')}: duplicate rule id "${id}" (first used by ${formatPath(['rules', seenAt])})`);

    const patterns = rule.tools ?? (rule.tool === undefined ? [] : [rule.tool]);
    if (rule.tool !== undefined && rule.tools !== undefined) {
      problems.push(`${at()}: give either "tool" or "tools", not both`);
    } else if (patterns.length === 0) {
      problems.push(`${at('tool')}: required (or "tools")`);
    }
    const matchers = patterns.map(compileToolPattern);
    const matchesTool: ToolMatcher = (name) => matchers.some((m) => m(name));
    const exactNames = new Set(patterns.filter((pattern) => !pattern.includes('*')));
    const namesTool: ToolMatcher = (name) => exactNames.has(name);

    let matchesArgs: ArgsPredicate | undefined;
    if (rule.when !== undefined) {
      const compiled = compileWhen(ajv, rule.when);
      if (compiled.ok) matchesArgs = compiled.test;
      else for (const p of compiled.problems) problems.push(`${at('when')}${p.where}: ${p.message}`);
    }

    let outcome: RuleOutcome;
    if (rule.verdict === 'approve') {
      outcome = { kind: 'approve', approval: approvalFor(rule.approval, defaultTtl, at, problems) };
    } else {
      if (rule.approval !== undefined) problems.push(`${at('approval')}: only allowed when verdict is "approve"`);
      outcome = { kind: rule.verdict };
    }

    rules.push(Object.freeze({ id, description: rule.description, index, matchesTool, namesTool, matchesArgs, outcome: Object.freeze(outcome) }));
  });

  const definitionReview = doc.definitionReview === undefined ? undefined : compileDefinitionReview(doc.definitionReview, problems);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, rules: Object.freeze(rules), definitionReview, sharedTools: doc.sharedTools };
}

type ApprovalSpec = z.output<typeof approvalSchema>;

function approvalFor(
  spec: ApprovalSpec | undefined,
  defaultTtl: number,
  at: (...rest: (string | number)[]) => string,
  problems: string[],
): Readonly<ApprovalRequirement> {
  const eligible = eligibleFor(spec?.approvers, at, problems);
  const requiredApprovals = spec?.required ?? 1;

  const pool = poolProblem(eligible, requiredApprovals);
  if (pool !== undefined) problems.push(`${at('approval', 'required')}: ${pool}`);

  return Object.freeze({
    eligible,
    requiredApprovals,
    ttlSeconds: spec?.ttlSeconds ?? defaultTtl,
    ...(spec?.passkey === undefined ? {} : { passkey: spec.passkey }),
  });
}

function eligibleFor(
  spec: ApprovalSpec['approvers'],
  at: (...rest: (string | number)[]) => string,
  problems: string[],
): Readonly<ApproverRule> {
  if (spec === undefined) return DEFAULT_ELIGIBLE_APPROVERS;
  return eligibleFrom(spec, (...rest) => at('approval', 'approvers', ...rest), problems);
}
