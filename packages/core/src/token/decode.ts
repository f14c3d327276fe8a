import { type ApprovalClaims, MAX_TOKEN_LENGTH, TOKEN_FORMAT_VERSION, TOKEN_TYPE, type TokenHeader } from './format.ts';

export interface DecodedToken {
  header: TokenHeader;
  claims: ApprovalClaims;
  signingInput: string;
  signature: Buffer;
}

export type DecodeResult =
  | { ok: true; token: DecodedToken }
  | { ok: false; reason: 'missing' | 'malformed' | 'unsupported_format'; message: string };

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const HEX64 = /^[0-9a-f]{64}$/;
const HEADER_KEYS = new Set(['alg', 'typ', 'kid']);
const CLAIM_KEYS = ['v', 'canon', 'run', 'sid', 'call', 'tool', 'def', 'args', 'sub', 'apr', 'req', 'iat', 'exp', 'jti'];

/**
 * Parses a token's structure WITHOUT checking its signature. Every field is
 * type-checked and unknown header parameters (`jku`, `jwk`, `crit`, …) are refused,
 * so nothing an attacker adds can steer verification.
 */
export function decodeApprovalToken(token: unknown): DecodeResult {
  if (token === undefined || token === null || token === '') {
    return { ok: false, reason: 'missing', message: 'no approval token was presented' };
  }
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) {
    return malformed('token must be a string of at most 8192 characters');
  }
  const parts = token.split('.');
  if (parts.length !== 3) return malformed('token must have three dot-separated parts');
  const [h, p, s] = parts as [string, string, string];
  if (!SEGMENT.test(h) || !SEGMENT.test(p) || !SEGMENT.test(s)) return malformed('token parts must be base64url');

  const header = decodeHeader(h);
  if (typeof header === 'string') return malformed(header);

  const claims = parseSegment(p);
  if (!isObject(claims)) return malformed('payload is not a JSON object');
  const problem = claimsProblem(claims);
  if (problem !== undefined) return problem;

  const signature = Buffer.from(s, 'base64url');
  // Re-encoding catches non-canonical base64url (extra trailing bits), so one
  // signature has exactly one textual form.
  if (signature.toString('base64url') !== s) return malformed('signature is not canonical base64url');

  return {
    ok: true,
    token: {
      header,
      claims: claims as unknown as ApprovalClaims,
      signingInput: `${h}.${p}`,
      signature,
    },
  };
}

// A service sees a handful of distinct headers (one per key id and algorithm), so the
// checked result is cached by the header's text; a bounded map keeps junk from growing it.
const headerCache = new Map<string, TokenHeader | string>();
const HEADER_CACHE_LIMIT = 64;

/** The checked header, or a message saying why it is not acceptable. */
function decodeHeader(segment: string): TokenHeader | string {
  const cached = headerCache.get(segment);
  if (cached !== undefined) return cached;
  const result = checkHeader(parseSegment(segment));
  if (headerCache.size >= HEADER_CACHE_LIMIT) headerCache.clear();
  headerCache.set(segment, result);
  return result;
}

function checkHeader(header: unknown): TokenHeader | string {
  if (!isObject(header)) return 'header is not a JSON object';
  for (const key of Object.keys(header)) {
    if (!HEADER_KEYS.has(key)) return `header parameter "${key}" is not allowed`;
  }
  if (header.typ !== TOKEN_TYPE) return `header typ must be "${TOKEN_TYPE}"`;
  if (typeof header.alg !== 'string' || typeof header.kid !== 'string' || header.kid === '') {
    return 'header needs string alg and kid';
  }
  return Object.freeze({ alg: header.alg, typ: TOKEN_TYPE, kid: header.kid }) as TokenHeader;
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

function parseSegment(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(message: string): DecodeResult {
  return { ok: false, reason: 'malformed', message };
}
