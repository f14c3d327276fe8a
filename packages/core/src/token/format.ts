/**
 * The approval token: a JWS compact serialization (RFC 7515) so any JOSE library
 * can check its signature, with an explicit `typ` (RFC 8725 §3.11) so it cannot be
 * confused with another JWT. Everything an approval binds (invariant 3) is in the
 * signed bytes: `alg`, `typ` and `kid` in the protected header, the rest in the payload.
 */
export const TOKEN_TYPE = 'countersign-approval+jwt';
/** 2: per-run keys carry the run id in the HKDF info (v1 used it as the salt); v1 tokens are refused. */
export const TOKEN_FORMAT_VERSION = 2;
/** Tokens longer than this are rejected as malformed before any parsing. */
export const MAX_TOKEN_LENGTH = 8192;

export type TokenAlgorithm = 'HS256' | 'EdDSA';

export interface TokenHeader {
  alg: TokenAlgorithm;
  typ: typeof TOKEN_TYPE;
  kid: string;
}

/** The call every signed object about it binds (tokens, decision records), as recorded in the ledger. */
export interface CallClaims {
  run: string;
  /** Session id. */
  sid: string;
  /** Tool-call id. */
  call: string;
  tool: string;
  /** Digest of the pinned tool definition; null when the tool has no pinned definition. */
  def: string | null;
  /** SHA-256 (hex) of the canonical arguments. */
  args: string;
  /** The principal the call acts for. */
  sub: string;
}

/** What one approval token asserts. Times are seconds since the epoch (JWT NumericDate). */
export interface ApprovalClaims extends CallClaims {
  /** Format version. */
  v: typeof TOKEN_FORMAT_VERSION;
  /** Canonicalization recipe the args digest was computed with. */
  canon: string;
  /** The approvers whose decisions minted this token (n-of-m gives several). */
  apr: string[];
  /** Approval request id: the ledger record this token consumes. */
  req: string;
  iat: number;
  exp: number;
  /** Token id: the ledger accepts exactly this id, once. */
  jti: string;
}

/** The call a token is checked against: always taken from the ledger, never from the token. */
export interface ExpectedCall {
  runId: string;
  sessionId: string;
  callId: string;
  toolName: string;
  definitionDigest?: string | undefined;
  argsDigest: string;
  principal: string;
}
