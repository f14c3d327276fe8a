import type { z } from 'zod';
import { ApiError } from '../errors/api-error.ts';

/** Validates a parsed body against a (strict) zod schema, as a typed 400 on failure. */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    throw new ApiError('unknown_field', `unexpected field(s): ${issue.keys.join(', ')}`);
  }
  const where = issue === undefined || issue.path.length === 0 ? 'body' : issue.path.map(String).join('.');
  throw new ApiError('invalid_request', `${where}: ${issue?.message ?? 'invalid'}`);
}
