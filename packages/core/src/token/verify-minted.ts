import { timingSafeEqual } from 'node:crypto';
import { MAX_TOKEN_LENGTH } from './format.ts';
import { approvalClaimsOf, type MintInput, mintApprovalToken } from './mint.ts';
import { checkTokenTimes, type VerifyOptions, type VerifyResult } from './verify.ts';

/**
 * A token presented to the server that minted it, checked against the ledger row it
 * names (`input`, from `tokenInputOf`): the token this server mints for that row with its
 * active key (a MAC over the canonical claims from the row; HS256 and Ed25519 are both
 * deterministic) is compared with the presented text in constant time. Equal: the
 * presented bytes are exactly that token, so every binding (run, session, call, tool,
 * definition, arguments, principal, request, token id) holds by construction and only the
 * times are checked; nothing of the presented token is decoded or parsed. Anything else
 * (another key, another row, any changed byte): undefined, and the caller verifies the
 * token the usual way (`verifyApprovalToken`), which names the reason. Never throws.
 */
export function verifyAsMinted(token: unknown, input: MintInput, options: VerifyOptions): VerifyResult | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return undefined;
  let expected: string;
  try {
    expected = mintApprovalToken(input, options.keyring);
  } catch {
    // A keyring that cannot mint (a verify-only Ed25519 key): the usual path.
    return undefined;
  }
  const presented = Buffer.from(token, 'utf8');
  const minted = Buffer.from(expected, 'utf8');
  if (presented.length !== minted.length || !timingSafeEqual(presented, minted)) return undefined;
  const claims = approvalClaimsOf(input);
  return checkTokenTimes(claims, options) ?? { ok: true, claims, kid: options.keyring.active().kid };
}
