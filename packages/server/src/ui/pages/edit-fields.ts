import { html } from 'hono/html';
import { shownText } from '../display-html.ts';
import type { Html } from '../html.ts';

/** One argument the form can edit as a field; anything else stays in the raw JSON. */
type Field =
  | { name: string; kind: 'string'; value: string | undefined; required: boolean; schema: Record<string, unknown> }
  | { name: string; kind: 'number' | 'integer'; value: string | undefined; required: boolean; schema: Record<string, unknown> }
  | { name: string; kind: 'boolean'; value: boolean | undefined; required: boolean }
  | { name: string; kind: 'enum'; value: string | undefined; required: boolean; options: string[] };

const MAX_FIELDS = 40;

/**
 * An edit form generated from the pinned input schema: one field per top-level argument
 * whose type a field can hold (string, number, integer, boolean, an enum of those), typed
 * and constrained from the schema (required, minimum/maximum, minLength/maxLength, pattern,
 * enum). Nested objects and arrays, and strings holding characters a field would hide, stay
 * in the raw JSON next to it. Hidden until page.js runs: the script checks each field as
 * it is typed and keeps fields and JSON textarea one state (each follows the other); the
 * textarea is what is submitted, so the fields send exactly what it shows. Empty when no
 * argument fits a field.
 */
export function editFields(inputSchema: Record<string, unknown> | undefined, canonicalArguments: string): Html | string {
  const args = parseObject(canonicalArguments);
  const properties = inputSchema?.type === 'object' && isRecord(inputSchema.properties) ? inputSchema.properties : undefined;
  if (args === undefined || properties === undefined) return '';
  const required = new Set(Array.isArray(inputSchema?.required) ? inputSchema.required.filter((r): r is string => typeof r === 'string') : []);
  const fields = Object.entries(properties)
    .slice(0, MAX_FIELDS)
    .map(([name, schema]) => fieldOf(name, schema, args[name], Object.hasOwn(args, name), required.has(name)))
    .filter((f): f is Field => f !== undefined);
  if (fields.length === 0) return '';
  const covered = new Set(fields.map((f) => f.name));
  // The arguments no field holds stay in the JSON textarea only: the script rewrites a field's own member there and leaves the rest as typed.
  const kept = Object.keys(args).filter((name) => !covered.has(name));
  return html`<fieldset class="edit-fields" id="edit-fields" hidden>
<legend>Arguments</legend>
${fields.map(fieldHtml)}
${kept.length === 0 ? '' : html`<p class="hint">${kept.length === 1 ? 'One argument' : `${kept.length} arguments`} (nested values) can only be changed in the JSON below.</p>`}
</fieldset>`;
}

function fieldOf(name: string, schema: unknown, value: unknown, present: boolean, required: boolean): Field | undefined {
  if (!isRecord(schema)) return undefined;
  if (Array.isArray(schema.enum)) {
    const options = schema.enum.filter((o) => typeof o === 'string' || typeof o === 'number' || typeof o === 'boolean').map((o) => JSON.stringify(o));
    if (options.length !== schema.enum.length || options.length === 0) return undefined;
    const current = present ? JSON.stringify(value) : undefined;
    if (current !== undefined && !options.includes(current)) return undefined;
    return { name, kind: 'enum', value: current, required, options };
  }
  switch (schema.type) {
    case 'string':
      if (present && typeof value !== 'string') return undefined;
      // A field would show hidden or control characters as nothing: such a value is edited as JSON, with its escapes.
      if (typeof value === 'string' && shownText(value) !== value) return undefined;
      return { name, kind: 'string', value: value as string | undefined, required, schema };
    case 'number':
    case 'integer':
      if (present && typeof value !== 'number') return undefined;
      return { name, kind: schema.type, value: present ? JSON.stringify(value) : undefined, required, schema };
    case 'boolean':
      if (present && typeof value !== 'boolean') return undefined;
      return { name, kind: 'boolean', value: value as boolean | undefined, required };
    default:
      return undefined;
  }
}

function fieldHtml(field: Field): Html {
  const id = `arg-${[...field.name].map((ch) => (/[A-Za-z0-9_-]/.test(ch) ? ch : '_')).join('')}`;
  const label = html`<label for="${id}">${shownText(field.name)}${field.required ? '' : html` <span class="muted">(optional)</span>`}</label>`;
  const common = html`id="${id}" data-arg="${field.name}" data-kind="${field.kind}"${field.required ? html` required` : ''} aria-describedby="${id}-error"`;
  const error = html`<span class="field-error" id="${id}-error" aria-live="polite"></span>`;
  switch (field.kind) {
    case 'string':
      return html`<div class="field">${label}<input type="text" ${common}${attr('minlength', field.schema.minLength)}${attr('maxlength', field.schema.maxLength)}${
        typeof field.schema.pattern === 'string' ? html` pattern="${field.schema.pattern}"` : ''
      } value="${field.value ?? ''}">${error}</div>`;
    case 'number':
    case 'integer':
      return html`<div class="field">${label}<input type="number" inputmode="decimal" step="${field.kind === 'integer' ? '1' : 'any'}" ${common}${attr('min', field.schema.minimum)}${attr('max', field.schema.maximum)} value="${field.value ?? ''}">${error}</div>`;
    case 'boolean':
      return html`<div class="field">${label}<select ${common}>${field.required ? '' : html`<option value=""${field.value === undefined ? html` selected` : ''}>(not set)</option>`}<option value="true"${field.value === true ? html` selected` : ''}>true</option><option value="false"${field.value === false ? html` selected` : ''}>false</option></select>${error}</div>`;
    case 'enum':
      return html`<div class="field">${label}<select ${common}>${field.required && field.value !== undefined ? '' : html`<option value="">(not set)</option>`}${field.options.map(
        (o) => html`<option value="${o}"${o === field.value ? html` selected` : ''}>${shownText(optionLabel(o))}</option>`,
      )}</select>${error}</div>`;
  }
}

/** An enum option as a person reads it: a string without its JSON quotes, anything else as JSON. */
function optionLabel(json: string): string {
  const value: unknown = JSON.parse(json);
  return typeof value === 'string' ? value : json;
}

function attr(name: string, value: unknown): Html | string {
  return typeof value === 'number' && Number.isFinite(value) ? html` ${name}="${String(value)}"` : '';
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
