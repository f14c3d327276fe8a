import { describeZodIssue } from '@countersign/core/config';
import type { z } from 'zod';
import { ApiError } from '../errors/api-error.ts';

/** Validates a parsed body against a (strict) zod schema, as a typed 400 on failure (core's zod issue messages). */
export function validate<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue?.code === 'unrecognized_keys') {
    throw new ApiError('unknown_field', `unexpected field(s): ${issue.keys.join(', ')}`);
  }
  throw new ApiError('invalid_request', issue === undefined ? 'invalid request body' : describeZodIssue(issue).join('; '));
}
