import { RECIPE_ID } from '../canonical/recipe.ts';
import { type ClaimsRead, checkCallClaims, checkShape, malformed } from './claims.ts';
import { APPROVAL_TOKEN_PURPOSE } from './derive-run-key.ts';
import { type ApprovalClaims, TOKEN_FORMAT_VERSION, TOKEN_TYPE, type TokenHeader } from './format.ts';
import { decodeJws } from './jws.ts';
import type { SignedKind } from './verify-signed.ts';

export interface DecodedToken {
  header: TokenHeader;
  claims: ApprovalClaims;
  signingInput: string;
  signature: Buffer;
}

export type DecodeResult =
  | { ok: true; token: DecodedToken }
  | { ok: false; reason: 'missing' | 'malformed' | 'unsupported_format'; message: string };

const CLAIM_KEYS = new Set(['v', 'canon', 'run', 'sid', 'call', 'tool', 'def', 'args', 'sub', 'apr', 'req', 'iat', 'exp', 'jti']);

/**
 * Parses a token's structure WITHOUT checking its signature (for inspection tools).
 * Every field is type-checked and unknown header parameters (`jku`, `jwk`, `crit`, …)
 * are refused, so nothing an attacker adds can steer verification.
 */
export function decodeApprovalToken(token: unknown): DecodeResult {
  const jws = decodeJws(token, TOKEN_TYPE);
  if (!jws.ok) {
    return jws.reason === 'missing'
      ? { ok: false, reason: 'missing', message: 'no approval token was presented' }
      : malformed(`token ${jws.message}`);
  }
  const { header, payload, signingInput, signature } = jws.parts;
  const read = readApprovalClaims(payload);
  if (!read.ok) return read;
  return { ok: true, token: { header: header as TokenHeader, claims: read.claims, signingInput, signature } };
}

/** The approval token's claims, typed; the canonicalization recipe is checked by the verifier. */
export function readApprovalClaims(c: Record<string, unknown>): ClaimsRead<ApprovalClaims> {
  const problem =
    checkShape(c, CLAIM_KEYS, TOKEN_FORMAT_VERSION, 'token format') ??
    checkCallClaims(c, ['canon', 'run', 'sid', 'call', 'tool', 'sub', 'req', 'jti']);
  if (problem !== undefined) return problem;
  if (!Array.isArray(c.apr) || c.apr.length === 0 || !c.apr.every((a) => typeof a === 'string' && a !== '')) {
    return malformed('claim "apr" must be a non-empty list of approver ids');
  }
  if (!Number.isSafeInteger(c.iat) || !Number.isSafeInteger(c.exp) || (c.exp as number) <= (c.iat as number)) {
    return malformed('claims "iat" and "exp" must be integers with exp > iat');
  }
  return { ok: true, claims: c as unknown as ApprovalClaims };
}

/** Approval tokens as a signed kind: their own `typ` and HKDF purpose. */
export const APPROVAL_TOKEN_KIND: SignedKind<ApprovalClaims> = {
  typ: TOKEN_TYPE,
  purpose: APPROVAL_TOKEN_PURPOSE,
  noun: 'approval token',
  readClaims(payload) {
    const read = readApprovalClaims(payload);
    if (read.ok && read.claims.canon !== RECIPE_ID) {
      return { ok: false, reason: 'unsupported_format', message: `unsupported canonicalization recipe "${read.claims.canon}"` };
    }
    return read;
  },
};
