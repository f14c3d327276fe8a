import type { Context } from 'hono';
import { ApiError } from '../errors/api-error.ts';
import { requireContentType } from './read-json.ts';

/**
 * Reads an urlencoded form into a plain record. A field given twice, or a field
 * the form does not have, is refused: what the server acts on is never ambiguous.
 */
export async function readForm(c: Context, allowed: readonly string[]): Promise<Record<string, string>> {
  requireContentType(c, (t) => t === 'application/x-www-form-urlencoded', 'application/x-www-form-urlencoded');
  const params = new URLSearchParams(await c.req.text());
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of params) {
    if (!allowed.includes(name)) throw new ApiError('unknown_field', `unexpected form field: ${name}`);
    if (Object.hasOwn(fields, name)) throw new ApiError('invalid_request', `form field given twice: ${name}`);
    fields[name] = value;
  }
  return fields;
}
