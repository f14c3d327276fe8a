import { type ApprovalClaims, TOKEN_FORMAT_VERSION, TOKEN_TYPE, type TokenHeader } from './format.ts';
import { decodeJws } from './jws.ts';

export interface DecodedToken {
  header: TokenHeader;
  claims: ApprovalClaims;
  signingInput: string;
  signature: Buffer;
}

export type DecodeResult =
  | { ok: true; token: DecodedToken }
  | { ok: false; reason: 'missing' | 'malformed' | 'unsupported_format'; message: string };

const HEX64 = /^[0-9a-f]{64}$/;
const CLAIM_KEYS = ['v', 'canon', 'run', 'sid', 'call', 'tool', 'def', 'args', 'sub', 'apr', 'req', 'iat', 'exp', 'jti'];

/**
 * Parses a token's structure WITHOUT checking its signature. Every field is
 * type-checked and unknown header parameters (`jku`, `jwk`, `crit`, …) are refused,
 * so nothing an attacker adds can steer verification.
 */
export function decodeApprovalToken(token: unknown): DecodeResult {
  const jws = decodeJws(token, TOKEN_TYPE);
  if (!jws.ok) {
    return jws.reason === 'missing'
      ? { ok: false, reason: 'missing', message: 'no approval token was presented' }
      : malformed(`token ${jws.message}`);
  }
  const { header, payload, signingInput, signature } = jws.parts;
  const problem = claimsProblem(payload);
  if (problem !== undefined) return problem;
  return {
    ok: true,
    token: { header: header as TokenHeader, claims: payload as unknown as ApprovalClaims, signingInput, signature },
  };
}

function claimsProblem(c: Record<string, unknown>): DecodeResult | undefined {
  const keys = Object.keys(c);
  const extra = keys.find((k) => !CLAIM_KEYS.includes(k));
  if (extra !== undefined) return malformed(`unknown claim "${extra}"`);
  if (c.v !== TOKEN_FORMAT_VERSION) {
    return { ok: false, reason: 'unsupported_format', message: `unsupported token format version ${String(c.v)}` };
  }
  for (const key of ['canon', 'run', 'sid', 'call', 'tool', 'sub', 'req', 'jti']) {
    if (typeof c[key] !== 'string' || c[key] === '') return malformed(`claim "${key}" must be a non-empty string`);
  }
  if (typeof c.args !== 'string' || !HEX64.test(c.args)) return malformed('claim "args" must be a SHA-256 hex digest');
  if (c.def !== null && (typeof c.def !== 'string' || !HEX64.test(c.def))) {
    return malformed('claim "def" must be a SHA-256 hex digest or null');
  }
  if (!Array.isArray(c.apr) || c.apr.length === 0 || !c.apr.every((a) => typeof a === 'string' && a !== '')) {
    return malformed('claim "apr" must be a non-empty list of approver ids');
  }
  if (!Number.isSafeInteger(c.iat) || !Number.isSafeInteger(c.exp) || (c.exp as number) <= (c.iat as number)) {
    return malformed('claims "iat" and "exp" must be integers with exp > iat');
  }
  return undefined;
}

function malformed(message: string): DecodeResult {
  return { ok: false, reason: 'malformed', message };
}
