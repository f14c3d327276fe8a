import { RECIPE_ID } from '../canonical/recipe.ts';
import { type ApprovalClaims, TOKEN_FORMAT_VERSION, TOKEN_TYPE, type TokenHeader } from './format.ts';
import { encodeSegment } from './jws.ts';
import type { Keyring } from './keyring.ts';
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
  return `${signingInput}.${signWith(keyring, key, input.run, signingInput).toString('base64url')}`;
}

/** The claims a token minted from `input` carries, in the order the minter writes them (verify-minted.ts re-encodes them). */
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

