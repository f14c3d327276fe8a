import { CanonicalizationError } from '../canonical/errors.ts';
import { FORBIDDEN_KEYS } from '../canonical/forbidden-keys.ts';
import { parseStrictJson } from '../canonical/parse-strict.ts';
import { MAX_TOKEN_LENGTH } from './format.ts';

/**
 * The JWS compact form (RFC 7515) our signed objects share: approval tokens, decision
 * records and audit checkpoints. Only `alg`, `typ` and `kid` are allowed in the protected header,
 * `typ` must be the one the caller expects (so one kind can never pass as the other),
 * and the signature must be canonical base64url. Header and payload are read with the
 * strict JSON parser, so a duplicate member name (`JSON.parse` keeps the last one, another
 * JOSE library may keep the first) is refused rather than resolved. Nothing here checks a
 * signature.
 */
export interface JwsHeader {
  alg: string;
  typ: string;
  kid: string;
}

export interface JwsParts {
  header: JwsHeader;
  payload: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

export type JwsDecode = { ok: true; parts: JwsParts } | { ok: false; reason: 'missing' | 'malformed'; message: string };

/** A JWS whose header has been checked but whose payload has not been read yet. */
export interface JwsSplit {
  header: JwsHeader;
  payloadSegment: string;
  signingInput: string;
  signature: Buffer;
}

export type JwsSplitResult = { ok: true; parts: JwsSplit } | { ok: false; reason: 'missing' | 'malformed'; message: string };

const HEADER_KEYS = new Set(['alg', 'typ', 'kid']);

/**
 * Checks the form, the header and the signature's encoding, and leaves the payload
 * unread: a verifier that knows its key up front checks the signature over the exact
 * signing input first and parses only authenticated bytes.
 *
 * `knownPayload`: base64url text the caller encoded itself (the payload it expects). When
 * the token carries exactly it, only the header and the signature are scanned for the
 * alphabet: the same answer as scanning the whole token, without a pass over the payload.
 */
export function splitJws(token: unknown, typ: string, knownPayload?: string): JwsSplitResult {
  if (token === undefined || token === null || token === '') {
    return { ok: false, reason: 'missing', message: 'nothing was presented' };
  }
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) {
    return malformed(`must be a string of at most ${MAX_TOKEN_LENGTH} characters`);
  }
  const firstDot = token.indexOf('.');
  const lastDot = token.lastIndexOf('.');
  const h = token.slice(0, Math.max(firstDot, 0));
  const s = token.slice(lastDot + 1);
  // The known payload has no dot, so around it these are the only two dots.
  const carriesKnown = knownPayload !== undefined && knownPayload !== '' && firstDot > 0 && lastDot > firstDot && token.slice(firstDot + 1, lastDot) === knownPayload;
  // Otherwise one scan of the whole token: three non-empty base64url segments, two dots.
  if (carriesKnown ? !(SEGMENT.test(h) && SEGMENT.test(s)) : !COMPACT.test(token)) {
    return token.split('.').length !== 3 ? malformed('must have three dot-separated parts') : malformed('parts must be base64url');
  }

  const header = decodeHeader(h, typ);
  if (typeof header === 'string') return malformed(header);
  // Non-canonical base64url (extra trailing bits) is refused, so one signature has
  // exactly one textual form.
  if (!isCanonicalBase64url(s)) return malformed('signature is not canonical base64url');
  const signature = Buffer.from(s, 'base64url');
  return { ok: true, parts: { header, payloadSegment: token.slice(firstDot + 1, lastDot), signingInput: token.slice(0, lastDot), signature } };
}

const COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Whether base64url text (alphabet already checked, no padding) is the one encoding of
 * its bytes: a length that leaves 1 character over encodes no whole byte, and the bits
 * of the last character beyond the last byte must be zero (2 characters over carry 4
 * unused bits, 3 carry 2). The same answer as re-encoding the decoded bytes and comparing.
 */
function isCanonicalBase64url(text: string): boolean {
  const over = text.length % 4;
  if (over === 0) return true;
  if (over === 1) return false;
  const last = BASE64URL.indexOf(text[text.length - 1]!);
  return (last & (over === 2 ? 0b1111 : 0b11)) === 0;
}

/** The payload segment as a JSON object, read strictly; a message saying why not otherwise. */
export function readPayload(segment: string): { ok: true; payload: Record<string, unknown> } | { ok: false; message: string } {
  const fast = readOwnForm(segment);
  if (fast !== undefined) return { ok: true, payload: fast };
  const parsed = parseSegment(segment);
  if (!parsed.ok) return { ok: false, message: `payload ${parsed.message}` };
  if (!isObject(parsed.value)) return { ok: false, message: 'payload is not a JSON object' };
  return { ok: true, payload: parsed.value };
}

/** Header and payload read, signature NOT checked (for inspection tools and claims-first kinds). */
export function decodeJws(token: unknown, typ: string): JwsDecode {
  const split = splitJws(token, typ);
  if (!split.ok) return split;
  const { header, payloadSegment, signingInput, signature } = split.parts;
  const read = readPayload(payloadSegment);
  if (!read.ok) return malformed(read.message);
  return { ok: true, parts: { header, payload: read.payload, signingInput, signature } };
}

export function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

// A service sees a handful of distinct headers (one per key id, algorithm and type), so
// the checked result is cached by expected type and header text; bounded so junk cannot grow it.
// (Keyed by type, then header text: no key string is built per token.)
const headerCache = new Map<string, Map<string, JwsHeader | string>>();
const HEADER_CACHE_LIMIT = 64;

/** The checked header, or a message saying why it is not acceptable. */
function decodeHeader(segment: string, typ: string): JwsHeader | string {
  let forType = headerCache.get(typ);
  const cached = forType?.get(segment);
  if (cached !== undefined) return cached;
  const parsed = parseSegment(segment);
  const result = parsed.ok ? checkHeader(parsed.value, typ) : `header ${parsed.message}`;
  if (forType === undefined || forType.size >= HEADER_CACHE_LIMIT) {
    forType = new Map();
    // A handful of kinds exist; a caller inventing types cannot grow this past its limit either.
    if (headerCache.size >= HEADER_CACHE_LIMIT) headerCache.clear();
    headerCache.set(typ, forType);
  }
  forType.set(segment, result);
  return result;
}

function checkHeader(header: unknown, typ: string): JwsHeader | string {
  if (!isObject(header)) return 'header is not a JSON object';
  for (const key of Object.keys(header)) {
    if (!HEADER_KEYS.has(key)) return `header parameter "${key}" is not allowed`;
  }
  if (header.typ !== typ) return `header typ must be "${typ}"`;
  if (typeof header.alg !== 'string' || typeof header.kid !== 'string' || header.kid === '') {
    return 'header needs string alg and kid';
  }
  return Object.freeze({ alg: header.alg, typ, kid: header.kid });
}

/**
 * The payload when its text is exactly what our minters write (`JSON.stringify` of an object
 * whose members are scalars or arrays of scalars), else undefined and the caller takes the strict parser. Text equal to the
 * re-serialization of its own parse has no duplicate member (a dropped one would be
 * missing), no lossy or non-canonical number and no whitespace; what that equality does
 * not rule out is excluded around it: `\u` escapes (lone surrogates), objects or arrays
 * inside arrays (the depth limit), forbidden keys, and integers beyond ±(2^53−1). Same answer as the strict parser,
 * at the cost of a `JSON.parse` and a `JSON.stringify` on the verify hot path.
 */
function readOwnForm(segment: string): Record<string, unknown> | undefined {
  const bytes = Buffer.from(segment, 'base64url');
  if (bytes.length > MAX_TOKEN_LENGTH) return undefined;
  const text = bytes.toString('utf8');
  if (text.charCodeAt(0) !== 0x7b || text.indexOf('{', 1) !== -1 || text.includes('\\u')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || JSON.stringify(value) !== text) return undefined;
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (FORBIDDEN_KEYS.has(key)) return undefined;
    if (Array.isArray(item) ? !item.every(isLosslessScalar) : !isLosslessScalar(item)) return undefined;
  }
  return value;
}

// No object can be here (the text has no second `{`), so this only refuses nested arrays and unsafe integers.
function isLosslessScalar(item: unknown): boolean {
  if (typeof item === 'number') return !Number.isInteger(item) || Number.isSafeInteger(item);
  return !Array.isArray(item);
}

type SegmentParse = { ok: true; value: unknown } | { ok: false; message: string };

/** One segment's JSON value, read strictly. */
function parseSegment(segment: string): SegmentParse {
  try {
    return { ok: true, value: parseStrictJson(Buffer.from(segment, 'base64url').toString('utf8'), SEGMENT_LIMITS) };
  } catch (error) {
    if (error instanceof CanonicalizationError) {
      return { ok: false, message: error.code === 'duplicate_key' ? `has a ${error.message}` : `is not strict JSON (${error.code})` };
    }
    return { ok: false, message: 'is not JSON' };
  }
}

// A token is at most MAX_TOKEN_LENGTH characters, and our objects are flat.
const SEGMENT_LIMITS = { maxBytes: MAX_TOKEN_LENGTH, maxDepth: 4 };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function malformed(message: string): { ok: false; reason: 'malformed'; message: string } {
  return { ok: false, reason: 'malformed', message };
}
