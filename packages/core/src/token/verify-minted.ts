import { APPROVAL_TOKEN_KIND } from './decode.ts';
import { APPROVAL_TOKEN_PURPOSE } from './derive-run-key.ts';
import { type ExpectedCall, MAX_TOKEN_LENGTH, TOKEN_TYPE } from './format.ts';
import { canonicalSignature, previouslyCheckedHeader } from './jws.ts';
import { approvalClaimsOf, type MintInput } from './mint.ts';
import { signatureValid } from './sign.ts';
import { claimsRejection, type VerifyOptions, type VerifyResult } from './verify.ts';

/**
 * The gate's fast path for an approval token: it holds the ledger record the token was
 * minted from (`minted`, as issue-token reads it), so instead of parsing the payload it
 * checks that the presented payload segment IS the one the minter writes for that record,
 * byte for byte, and that the MAC over the exact signing input verifies. Nothing of the
 * payload is read, and what it binds is the ledger's record by construction.
 *
 * Returns the result the full `verifyApprovalToken` gives for this token, but only when
 * that is an acceptance: header seen and accepted before (previouslyCheckedHeader), key
 * and algorithm from the keyring, canonical signature, payload equal to the minter's,
 * MAC valid, the claims accepted by the same reader the full path applies to a parsed
 * payload, then run, time and binding. Anything else is undefined, and the caller runs
 * the full verification, which names the reason. Never throws.
 */
export function verifyMintedToken(token: unknown, minted: MintInput, expected: ExpectedCall, options: VerifyOptions): VerifyResult | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
  const firstDot = token.indexOf('.');
  const lastDot = token.lastIndexOf('.');
  if (firstDot <= 0) return undefined;
  const claims = approvalClaimsOf(minted);
  const text = JSON.stringify(claims);
  // An escape (a lone surrogate's) would make the full path's parser refuse what this one accepts.
  if (text.includes('\\u')) return undefined;
  const payload = Buffer.from(text, 'utf8').toString('base64url');
  // The payload is the minter's own text: base64url, no dot, so these two dots are the only ones.
  // (A slice compared with ===, not startsWith(…, position): that is several times slower here.)
  if (token.slice(firstDot + 1, lastDot) !== payload) return undefined;
  const header = previouslyCheckedHeader(token.slice(0, firstDot), TOKEN_TYPE);
  if (header === undefined) return undefined;
  const key = options.keyring.get(header.kid);
  if (key === undefined || key.alg !== header.alg) return undefined;
  const signature = canonicalSignature(token.slice(lastDot + 1));
  if (signature === undefined) return undefined;
  try {
    if (!signatureValid(options.keyring, key, expected.runId, token.slice(0, lastDot), signature, APPROVAL_TOKEN_PURPOSE)) return undefined;
  } catch {
    return undefined;
  }
  const read = APPROVAL_TOKEN_KIND.readClaims(claims as unknown as Record<string, unknown>);
  if (!read.ok || claimsRejection(claims, expected, options) !== undefined) return undefined;
  return { ok: true, claims, kid: key.kid };
}
