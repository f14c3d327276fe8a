import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { serializeCanonical } from '../../canonical/serialize.ts';
import { READ_ONLY_AJV_OPTIONS } from '../../policy/args-schema.ts';

/** One way the arguments break the tool's input schema, located by JSON Pointer (RFC 6901). */
export interface InputSchemaProblem {
  /** Where in the arguments: `""` for the whole object, `/to` for a property. */
  pointer: string;
  message: string;
}

export type InputSchemaCheck =
  | { ok: true; checked: boolean }
  | { ok: false; problems: InputSchemaProblem[] };

const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-0[4-7]\/schema#?$/;
/** Past this many problems the list stops: an approver needs to know *that* it breaks, and roughly where. */
const MAX_PROBLEMS = 20;
/** Compiled validators by canonical schema text; tool schemas are few and long-lived. */
const MAX_CACHED = 256;

type Validator = ((value: unknown) => boolean) & { errors?: AjvError[] | null | undefined };
interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string | undefined;
  params: Record<string, unknown>;
}

const cache = new Map<string, Validator | string>();

/**
 * Checks arguments against a tool's pinned input schema, for the approver's view and
 * for approve-with-edits (an edit the tool's own schema does not allow is refused).
 *
 * Tool schemas come from tool authors and MCP servers, not from our policy files, so
 * the validator is lenient about *schemas* (unknown keywords and formats are ignored,
 * as MCP clients do) but strict about *values*: no coercion, no defaults, nothing
 * removed, so validation never changes what was hashed. Draft-04..07 schemas (by
 * `$schema`) use Ajv's draft-07 mode; everything else draft 2020-12. A schema that
 * cannot be compiled is itself a problem: the call is flagged, never waved through.
 * No schema means nothing to check (`checked: false`).
 */
export function checkInputSchema(schema: Record<string, unknown> | undefined, args: unknown): InputSchemaCheck {
  if (schema === undefined) return { ok: true, checked: false };
  const validate = compiled(schema);
  if (typeof validate === 'string') return { ok: false, problems: [{ pointer: '', message: validate }] };
  if (validate(args)) return { ok: true, checked: true };
  const problems = (validate.errors ?? []).slice(0, MAX_PROBLEMS).map(describeError);
  return { ok: false, problems: problems.length > 0 ? problems : [{ pointer: '', message: 'does not match the input schema' }] };
}

function compiled(schema: Record<string, unknown>): Validator | string {
  let key: string;
  try {
    key = serializeCanonical(schema);
  } catch {
    return 'the input schema is not canonical JSON';
  }
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let result: Validator | string;
  try {
    const ajv = typeof schema.$schema === 'string' && DRAFT_07.test(schema.$schema) ? draft07() : draft2020();
    // Cloned: a caller changing its schema object later cannot change the compiled check.
    result = ajv.compile(structuredClone(schema)) as Validator;
    if (schema.$async === true) result = 'async input schemas are not supported';
  } catch (error) {
    result = `the input schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, result);
  return result;
}

const options = { ...READ_ONLY_AJV_OPTIONS, strict: false, allErrors: true } as const;

function draft2020(): Ajv2020 {
  return new Ajv2020(options);
}
function draft07(): Ajv {
  return new Ajv(options);
}

function describeError(error: AjvError): InputSchemaProblem {
  // For an unexpected property Ajv reports the parent; point at the property itself.
  if (error.keyword === 'additionalProperties' && typeof error.params.additionalProperty === 'string') {
    const name = error.params.additionalProperty.replaceAll('~', '~0').replaceAll('/', '~1');
    return { pointer: `${error.instancePath}/${name}`, message: 'is not a property the tool accepts' };
  }
  return { pointer: error.instancePath, message: error.message ?? error.keyword };
}
