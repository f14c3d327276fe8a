import { RECIPE_ID } from '../canonical/recipe.ts';
import { type ApprovalClaims, TOKEN_FORMAT_VERSION, TOKEN_TYPE, type TokenHeader } from './format.ts';
import { encodeSegment } from './jws.ts';
import type { Keyring } from './keyring.ts';
import type { KnownPayload } from './verify-signed.ts';
import { signWith } from './sign.ts';

export type MintInput = Omit<ApprovalClaims, 'v' | 'canon'>;

/**
 * Mints the approval token for one ledger call with the keyring's active key.
 * Deterministic for the same input and key (HS256 and Ed25519 both are), so the
 * server can hand out the same token again without storing it.
 */
export function mintApprovalToken(input: MintInput, keyring: Keyring): string {
  const key = keyring.active();
  const header: TokenHeader = { alg: key.alg, typ: TOKEN_TYPE, kid: key.kid };
  const signingInput = `${encodeSegment(header)}.${encodeSegment(approvalClaimsOf(input))}`;
  // Joined, not concatenated: join writes one flat string. A template literal leaves a cons
  // string that the verifier's first indexOf flattens on every dispatch, and an in-process
  // holder of the token (an agent loop) then keeps both copies (~0.7 KB per 200 B call).
  return [signingInput, signWith(keyring, key, input.run, signingInput).toString('base64url')].join('.');
}

/** The claims a token minted from `input` carries, in the order the minter writes them. */
export function approvalClaimsOf(input: MintInput): ApprovalClaims {
  return {
    v: TOKEN_FORMAT_VERSION,
    canon: RECIPE_ID,
    run: input.run,
    sid: input.sid,
    call: input.call,
    tool: input.tool,
    def: input.def,
    args: input.args,
    sub: input.sub,
    apr: [...input.apr],
    req: input.req,
    iat: input.iat,
    exp: input.exp,
    jti: input.jti,
  };
}


/**
 * The payload segment the minter writes for `input`, with the claims it encodes, for a
 * verifier that holds the ledger record (verifyApprovalToken's `minted`): a token carrying
 * exactly this segment needs no parse. Only when reading the segment back gives exactly
 * these claims, as the verifier's own reading would: undefined when the JSON has a `\u`
 * escape (a lone surrogate, which the strict reader refuses) or a time that is not a safe
 * integer (which it reads differently), and the token is then read the usual way.
 */
export function mintedPayloadOf(input: MintInput): KnownPayload | undefined {
  const claims = approvalClaimsOf(input);
  if (!Number.isSafeInteger(claims.iat) || !Number.isSafeInteger(claims.exp)) return undefined;
  const text = JSON.stringify(claims);
  if (text.includes('\\u')) return undefined;
  return { segment: Buffer.from(text, 'utf8').toString('base64url'), payload: claims as unknown as Record<string, unknown> };
}
