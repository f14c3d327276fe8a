import { hash, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 of a UTF-8 string: fixed length, so comparisons never leak the secret's length.
 * One-shot `hash` rather than `createHash`: no Hash object per call, and this runs on
 * every bearer-authenticated request.
 */
export function digestSecret(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

/** Compares two secrets in constant time over their SHA-256 digests. */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(digestSecret(a), digestSecret(b));
}

/**
 * Index of the entry whose digest equals `presented`'s, or -1. Compares against
 * every entry without stopping early, so timing does not reveal which one matched.
 */
export function findSecret(presented: string, digests: readonly Buffer[]): number {
  const candidate = digestSecret(presented);
  let found = -1;
  for (let i = 0; i < digests.length; i++) {
    const digest = digests[i]!;
    if (timingSafeEqual(candidate, digest) && found === -1) found = i;
  }
  return found;
}
