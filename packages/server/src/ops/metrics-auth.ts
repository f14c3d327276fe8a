import { secretsEqual } from '../auth/constant-time.ts';

/** Whether an `Authorization` header carries exactly `token` as a bearer token (constant-time). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(authorization ?? '');
  return match !== null && secretsEqual(match[1]!, token);
}
