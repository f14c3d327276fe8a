/**
 * Claim readers for the three signed kinds (approval tokens, decision records, audit
 * checkpoints). Each kind lists its claims exactly: an unknown claim is refused, a
 * version other than the kind's own is `unsupported_format`, every field is type-checked.
 * The call-binding claims tokens and decision records share are checked by one function.
 */
export type ClaimsRead<C> = { ok: true; claims: C } | { ok: false; reason: 'malformed' | 'unsupported_format'; message: string };

export const HEX64 = /^[0-9a-f]{64}$/;

export function malformed(message: string): { ok: false; reason: 'malformed'; message: string } {
  return { ok: false, reason: 'malformed', message };
}

/** Refuses claims outside `known`, then a version other than `version` (`what` names the kind). */
export function checkShape(
  c: Record<string, unknown>,
  known: ReadonlySet<string>,
  version: number,
  what: string,
): ClaimsRead<never> | undefined {
  // A plain loop (no closure): this runs on every token verified.
  const keys = Object.keys(c);
  for (let i = 0; i < keys.length; i++) {
    if (!known.has(keys[i]!)) return malformed(`unknown claim "${keys[i]}"`);
  }
  if (c.v !== version) return { ok: false, reason: 'unsupported_format', message: `unsupported ${what} version ${String(c.v)}` };
  return undefined;
}

/** Non-empty string claims, then the `args` and `def` digests every call-bound object carries. */
export function checkCallClaims(c: Record<string, unknown>, strings: readonly string[]): ClaimsRead<never> | undefined {
  for (const key of strings) {
    if (typeof c[key] !== 'string' || c[key] === '') return malformed(`claim "${key}" must be a non-empty string`);
  }
  if (typeof c.args !== 'string' || !HEX64.test(c.args)) return malformed('claim "args" must be a SHA-256 hex digest');
  if (c.def !== null && (typeof c.def !== 'string' || !HEX64.test(c.def))) {
    return malformed('claim "def" must be a SHA-256 hex digest or null');
  }
  return undefined;
}
