import { RECIPE_ID } from '../canonical/recipe.ts';
import { type DecodedToken, decodeApprovalToken } from './decode.ts';
import type { ApprovalClaims, ExpectedCall } from './format.ts';
import type { Keyring } from './keyring.ts';
import { signatureValid } from './sign.ts';

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
 * other algorithm is refused. Never throws.
 */
export function verifyApprovalToken(token: unknown, expected: ExpectedCall, options: VerifyOptions): VerifyResult {
  const decoded = decodeApprovalToken(token);
  if (!decoded.ok) return decoded;
  const { header, claims } = decoded.token;

  const key = options.keyring.get(header.kid);
  if (key === undefined) return reject('unknown_key', `no trusted key with id "${header.kid}"`);
  if (header.alg !== key.alg) {
    return reject('algorithm_mismatch', `key "${key.kid}" is ${key.alg}; token header says ${header.alg}`);
  }
  if (claims.canon !== RECIPE_ID) {
    return reject('unsupported_format', `unsupported canonicalization recipe "${claims.canon}"`);
  }
  // HS256 keys are derived per run from the EXPECTED run id, so a token from another
  // run could only ever fail the signature check; say why instead.
  if (claims.run !== expected.runId) return reject('run_mismatch', 'token was issued for another run');
  if (!checkSignature(options.keyring, decoded.token, expected.runId, key)) {
    return reject('bad_signature', 'signature does not verify');
  }
  return checkTimeAndBinding(claims, expected, options) ?? { ok: true, claims, kid: key.kid };
}

function checkSignature(
  keyring: Keyring,
  token: DecodedToken,
  runId: string,
  key: NonNullable<ReturnType<Keyring['get']>>,
): boolean {
  try {
    return signatureValid(keyring, key, runId, token.signingInput, token.signature);
  } catch {
    return false;
  }
}

function checkTimeAndBinding(
  claims: ApprovalClaims,
  expected: ExpectedCall,
  options: VerifyOptions,
): VerifyResult | undefined {
  const nowSeconds = options.now / 1000;
  const tolerance = options.clockToleranceSeconds ?? 5;
  if (claims.iat > nowSeconds + tolerance) return reject('not_yet_valid', 'token was issued in the future');
  if (nowSeconds >= claims.exp + tolerance) return reject('expired', 'token has expired');
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

function reject(reason: TokenRejection, message: string): VerifyResult {
  return { ok: false, reason, message };
}
