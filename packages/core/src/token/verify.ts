import { APPROVAL_TOKEN_KIND } from './decode.ts';
import type { ApprovalClaims, ExpectedCall } from './format.ts';
import type { Keyring } from './keyring.ts';
import { type KnownPayload, verifySigned } from './verify-signed.ts';

export type TokenRejection =
  | 'missing'
  | 'malformed'
  | 'unsupported_format'
  | 'unknown_key'
  | 'algorithm_mismatch'
  | 'bad_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'run_mismatch'
  | 'session_mismatch'
  | 'call_mismatch'
  | 'tool_mismatch'
  | 'definition_mismatch'
  | 'args_mismatch'
  | 'principal_mismatch';

export type VerifyResult =
  | { ok: true; claims: ApprovalClaims; kid: string }
  | { ok: false; reason: TokenRejection; message: string };

type Rejection = Extract<VerifyResult, { ok: false }>;

export interface VerifyOptions {
  keyring: Keyring;
  /** Current time in milliseconds (from the injected clock). */
  now: number;
  /** Allowed clock difference between minter and verifier, in seconds. Default 5. */
  clockToleranceSeconds?: number;
}

/**
 * Checks that `token` is valid evidence for exactly `expected` (a call read from the
 * ledger). The algorithm comes from the key found by `kid`; a header naming any
 * other algorithm is refused. The per-run key comes from the EXPECTED run, so the
 * signature is checked before the payload is parsed. `minted`: the payload the ledger's
 * record mints (mintedPayloadOf), which a token carrying exactly it needs no parse for.
 * Never throws.
 */
export function verifyApprovalToken(token: unknown, expected: ExpectedCall, options: VerifyOptions, minted?: KnownPayload): VerifyResult {
  const otherRun = (claims: ApprovalClaims) =>
    claims.run === expected.runId ? undefined : reject('run_mismatch', 'token was issued for another run');
  // An HS256 token from another run can only fail the signature (its key is derived from
  // the expected run); `explain` says why instead.
  const checked = verifySigned(APPROVAL_TOKEN_KIND, token, options.keyring, { known: expected.runId, explain: otherRun, minted });
  if (!checked.ok) return checked;
  // An Ed25519 signature does not depend on the run, so the run is compared here too.
  return otherRun(checked.claims) ?? checkTimeAndBinding(checked.claims, expected, options) ?? checked;
}

function checkTimeAndBinding(
  claims: ApprovalClaims,
  expected: ExpectedCall,
  options: VerifyOptions,
): Rejection | undefined {
  const early = checkTokenTimes(claims, options);
  if (early !== undefined) return early;
  if (claims.sid !== expected.sessionId) return reject('session_mismatch', 'token was issued for another session');
  if (claims.call !== expected.callId) return reject('call_mismatch', 'token was issued for another tool call');
  if (claims.tool !== expected.toolName) return reject('tool_mismatch', 'token was issued for another tool');
  if (claims.def !== (expected.definitionDigest ?? null)) {
    return reject('definition_mismatch', 'tool definition changed since approval');
  }
  if (claims.args !== expected.argsDigest) return reject('args_mismatch', 'arguments differ from the approved ones');
  if (claims.sub !== expected.principal) return reject('principal_mismatch', 'token was issued for another principal');
  return undefined;
}

/** Issued in the future or expired at `options.now` (with the clock tolerance), else undefined. */
export function checkTokenTimes(claims: Pick<ApprovalClaims, 'iat' | 'exp'>, options: VerifyOptions): Rejection | undefined {
  const nowSeconds = options.now / 1000;
  const tolerance = options.clockToleranceSeconds ?? 5;
  if (claims.iat > nowSeconds + tolerance) return reject('not_yet_valid', 'token was issued in the future');
  if (nowSeconds >= claims.exp + tolerance) return reject('expired', 'token has expired');
  return undefined;
}

function reject(reason: TokenRejection, message: string): Rejection {
  return { ok: false, reason, message };
}
