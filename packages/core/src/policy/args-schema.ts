import { Ajv2020 } from 'ajv/dist/2020.js';
import { closestKey } from '../config/did-you-mean.ts';

/** A compiled `when` condition: does the arguments object satisfy the rule's JSON Schema? */
export type ArgsPredicate = (args: unknown) => boolean;

/** `problems`: `where: message` pairs, `where` a JSON pointer into the schema ('' for the schema itself). */
export type CompileWhenResult = { ok: true; test: ArgsPredicate } | { ok: false; problems: Array<{ where: string; message: string }> };

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/**
 * One validator instance per policy document. `when` schemas are JSON Schema
 * draft 2020-12 (only). The options are chosen so a condition can only *read* the
 * arguments and only means what it says:
 * - `strict`: unknown keywords, unknown formats, ambiguous types are load errors,
 *   never silently ignored (an ignored constraint would widen an allow rule);
 * - no coercion, no defaults, no removal of additional properties: validation must
 *   not mutate the arguments that are later hashed and executed;
 * - no `$data`, no `loadSchema` (so remote `$ref`s fail at load instead of fetching);
 * - `ownProperties`: only the arguments' own keys count, never inherited ones;
 * - `addUsedSchema: false`: a `$id` in one rule is not registered for the others,
 *   so every condition is self-contained and rules cannot collide or depend on order;
 * - `allErrors: false`: we only need yes/no, and stopping early is cheaper.
 */
export function createArgsAjv(): Ajv2020 {
  const noticed: string[] = [];
  // Strict checks are logged, not thrown, so one compile reports every one of them; compileWhen
  // refuses the schema when any was logged, so each is still a load error, just not only the first.
  const ajv = new Ajv2020({
    ...READ_ONLY_AJV_OPTIONS,
    strict: 'log',
    allErrors: false,
    logger: { log: () => undefined, warn: (message: unknown) => void noticed.push(String(message)), error: (message: unknown) => void noticed.push(String(message)) },
  });
  strictNotices.set(ajv, noticed);
  return ajv;
}

/** What each validator's strict mode noticed during the current compile. */
const strictNotices = new WeakMap<Ajv2020, string[]>();

/**
 * Options under which validation can only read the value it checks: no coercion, no
 * defaults, nothing removed, no `$data`, own properties only, no schema registered for
 * later compiles. Shared by policy conditions and the tool input-schema check.
 */
export const READ_ONLY_AJV_OPTIONS = {
  $data: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  ownProperties: true,
  addUsedSchema: false,
  validateFormats: true,
  logger: false,
} as const;

/** Compiles one rule's `when` schema, reporting (not throwing) anything that makes it unusable. */
export function compileWhen(ajv: Ajv2020, schema: Record<string, unknown>): CompileWhenResult {
  const declared = schema.$schema;
  if (declared !== undefined && declared !== DRAFT_2020_12 && declared !== `${DRAFT_2020_12}#`) {
    return failed(`only JSON Schema draft 2020-12 is supported ($schema: "${DRAFT_2020_12}")`);
  }
  if (schema.$async !== undefined) {
    // An async validator returns a promise, which is truthy: it would match everything.
    return failed('$async schemas are not supported');
  }
  // Every meta-schema violation at once (compiling stops at the first), each with its place.
  const meta = metaValidator();
  if (meta.validateSchema(schema) !== true) {
    // One problem per place: the first error there, not the anyOf/oneOf summaries around it.
    const problems = new Map<string, string>();
    for (const e of meta.errors ?? []) {
      if (e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
      if (!problems.has(e.instancePath)) problems.set(e.instancePath, e.message ?? 'invalid');
    }
    return { ok: false, problems: [...problems].map(([where, message]) => ({ where, message })) };
  }
  const noticed = strictNotices.get(ajv);
  noticed?.splice(0);
  try {
    // Cloned so later changes to the caller's document cannot reach the compiled rule.
    const validate = ajv.compile(structuredClone(schema));
    if (noticed !== undefined && noticed.length > 0) return { ok: false, problems: [...new Set(noticed)].map(strictProblem) };
    return { ok: true, test: (args) => validate(args) === true };
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  } finally {
    noticed?.splice(0);
  }
}

// Ajv's strict-mode messages, said the way a policy author thinks: which keyword, where, and the fix.
const MISSING_TYPE = /^strict mode: missing type "([^"]+)" for keyword "([^"]+)" at "#([^"]*)"/;
/** The draft 2020-12 validation keywords a `when` condition uses, for "did you mean". */
const SCHEMA_KEYWORDS = [
  'type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames',
  'minProperties', 'maxProperties', 'items', 'prefixItems', 'contains', 'minItems', 'maxItems', 'uniqueItems',
  'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength', 'pattern',
  'format', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentRequired', 'dependentSchemas',
  'unevaluatedProperties', 'unevaluatedItems', 'description', 'title', 'default', 'examples', '$ref', '$defs',
];
const UNKNOWN_KEYWORD = /^strict mode: unknown keyword: "([^"]+)"/;

function strictProblem(message: string): { where: string; message: string } {
  const missing = MISSING_TYPE.exec(message);
  if (missing !== null) {
    const [, type, keyword, where] = missing;
    return { where: where ?? '', message: `"${keyword}" applies only to ${type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`}: add type: ${type} next to it` };
  }
  const unknown = UNKNOWN_KEYWORD.exec(message);
  if (unknown !== null) {
    const near = closestKey(unknown[1] ?? '', SCHEMA_KEYWORDS);
    return { where: '', message: `unknown keyword "${unknown[1]}"${near === undefined ? '' : `; did you mean "${near}"?`} (an unknown keyword would be ignored, so it is refused)` };
  }
  return { where: '', message: message.replace(/^strict mode: /, '').replace(/ \(strict\w+\)$/, '') };
}

function failed(message: string): CompileWhenResult {
  return { ok: false, problems: [{ where: '', message }] };
}

let metaAjv: Ajv2020 | undefined;

/** Checks schemas against the 2020-12 meta-schema, reporting all errors; compiles nothing. */
function metaValidator(): Ajv2020 {
  metaAjv ??= new Ajv2020({ ...READ_ONLY_AJV_OPTIONS, strict: false, allErrors: true });
  return metaAjv;
}
