import { ApiError } from '../../errors/api-error.ts';

/** The decision form's field passkey.js fills with the assertion (JSON text). */
export const PASSKEY_FIELD = 'passkeyAssertion';

/** The assertion a decision form carries, parsed (the gate reads it strictly), or undefined when the form has none. */
export function passkeyAssertionFromForm(form: Record<string, string>): unknown {
  const text = form[PASSKEY_FIELD];
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError('passkey_invalid', 'passkey assertion refused: not JSON');
  }
}
