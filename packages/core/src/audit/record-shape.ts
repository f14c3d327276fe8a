import { formatProblem } from './record-format.ts';
import type { AuditEventType, AuditValue } from './types.ts';

/** Every event type a record may carry; anything else is malformed. */
export const AUDIT_EVENT_TYPES: readonly AuditEventType[] = [
  'proposal',
  'verdict',
  'approval_requested',
  'decision',
  'token_minted',
  'dispatch',
  'rejection',
  'result',
  'revocation',
  'withdrawal',
  'definition_changed',
  'definition_pinned',
  'checkpoint',
  'passkey_registered',
  'passkey_removed',
];

/**
 * Nesting limit for `detail`. Records may come from a file an attacker edited, so
 * validation must not recurse without bound; events are built by our own code and
 * never need deep detail.
 */
export const MAX_AUDIT_DETAIL_DEPTH = 32;

const EVENT_TYPES: ReadonlySet<string> = new Set(AUDIT_EVENT_TYPES);
const HEX_SHA256 = /^[0-9a-f]{64}$/;

/** True for a lower-case hex SHA-256 digest, the only form hashes and digests take in the chain. */
export function isHexSha256(value: unknown): value is string {
  return typeof value === 'string' && value.length === 64 && HEX_SHA256.test(value);
}

// What shapeProblem checks: an event (extra properties ignored), a standalone record
// (extra properties rejected), or a record inside a chain being verified. In the last case prevHash and
// hash only need to be strings of the right length: the verifier compares them with
// the previous hash and the recomputed hash, which are hex, so a non-hex value fails
// there anyway, and skipping two hex scans per record is worth a tenth of the cost.
const EVENT = 0;
const RECORD = 1;
const CHAINED_RECORD = 2;
type ShapeMode = typeof EVENT | typeof RECORD | typeof CHAINED_RECORD;

function isSha256Length(value: unknown): boolean {
  return typeof value === 'string' && value.length === 64;
}

/**
 * Why `value` is not a well-formed `AuditEvent`, or undefined if it is. Properties
 * that are not AuditEvent fields are ignored here (and dropped by buildRecord).
 */
export function auditEventProblem(value: unknown): string | undefined {
  return shapeProblem(value, EVENT);
}

/** Why `value` is not a well-formed `AuditRecord`, or undefined if it is. Never throws on plain data. */
export function auditRecordProblem(value: unknown): string | undefined {
  return shapeProblem(value, RECORD);
}

/**
 * `auditRecordProblem` for the chain verifier, which itself compares prevHash and
 * hash with known hex values. Not part of the public API.
 */
export function chainedRecordProblem(value: unknown): string | undefined {
  return shapeProblem(value, CHAINED_RECORD);
}

// One pass over the own keys: known ones are type-checked, unknown ones make a record
// malformed (an attacker must not be able to smuggle unhashed content into it). An own key
// whose value is `undefined` counts as absent, exactly as the canonical form omits it.
function shapeProblem(value: unknown, mode: ShapeMode): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'not a JSON object';
  }
  const v = value as { readonly [key: string]: unknown };
  if (!(typeof v.type === 'string' && EVENT_TYPES.has(v.type))) return 'field "type" must be a known event type';
  if (!(typeof v.at === 'number' && Number.isFinite(v.at))) return 'field "at" must be a finite number';
  if (mode !== EVENT) {
    if (!(typeof v.seq === 'number' && Number.isSafeInteger(v.seq) && v.seq >= 1)) {
      return 'field "seq" must be a positive integer';
    }
    const hashCheck = mode === RECORD ? isHexSha256 : isSha256Length;
    if (!hashCheck(v.prevHash)) return 'field "prevHash" must be a lower-case hex SHA-256';
    if (!hashCheck(v.hash)) return 'field "hash" must be a lower-case hex SHA-256';
  }
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    const field = v[key];
    switch (key) {
      // Checked above.
      case 'type':
      case 'at':
      case 'seq':
      case 'prevHash':
      case 'hash':
        break;
      case 'runId':
      case 'sessionId':
      case 'callId':
      case 'proposalId':
      case 'toolName':
        if (field !== undefined && !(typeof field === 'string' && field.isWellFormed())) {
          return `field "${key}" must be a well-formed string`;
        }
        break;
      case 'requestId':
      case 'actor':
      case 'reason':
        if (field !== undefined && !(typeof field === 'string' && field.isWellFormed())) {
          return `field "${key}" must be a well-formed string`;
        }
        break;
      case 'argsDigest':
        if (field !== undefined && !isHexSha256(field)) return 'field "argsDigest" must be a lower-case hex SHA-256';
        break;
      case 'detail':
        if (field !== undefined) {
          if (typeof field !== 'object' || field === null || Array.isArray(field)) {
            return 'field "detail" must be a JSON object';
          }
          const problem = valueProblem(field, 1);
          if (problem !== undefined) return `field "detail"${problem}`;
        }
        break;
      default:
        // A record must hold nothing unhashed. An event may carry extras (a caller
        // spreading a larger object): buildRecord copies only the known fields.
        if (mode === EVENT) break;
        return `unknown field "${key.slice(0, 64)}"`;
    }
  }
  // The fields are well-typed by now; what a record of this type and format must hold.
  return formatProblem(v as unknown as Parameters<typeof formatProblem>[0]);
}

// Returns a problem prefixed with the JSON-pointer-like path to it, e.g. `/a/0: non-finite number`.
export function valueProblem(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return value.isWellFormed() ? undefined : ': string has a lone surrogate';
    case 'number':
      return Number.isFinite(value) ? undefined : ': number must be finite';
    case 'boolean':
      return undefined;
    case 'object': {
      if (value === null) return undefined;
      if (depth > MAX_AUDIT_DETAIL_DEPTH) return `: nested deeper than ${MAX_AUDIT_DETAIL_DEPTH}`;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const problem = valueProblem(value[i], depth + 1);
          if (problem !== undefined) return `/${i}${problem}`;
        }
        return undefined;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return ': must be a plain object';
      const obj = value as { readonly [key: string]: unknown };
      for (const key in obj) {
        if (!Object.hasOwn(obj, key)) continue;
        const item = obj[key];
        // Like JSON and RFC 8785, an undefined property is simply absent.
        if (item === undefined) continue;
        if (!key.isWellFormed()) return ': key has a lone surrogate';
        const problem = valueProblem(item, depth + 1);
        if (problem !== undefined) return `/${key.slice(0, 64)}${problem}`;
      }
      return undefined;
    }
    default:
      return `: ${typeof value} is not a JSON value`;
  }
}

function copyValue(value: AuditValue): AuditValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyValue);
  return copyObject(value);
}

/**
 * A fresh plain object holding `value`'s own members, deep-copied (for a validated detail),
 * so later mutation of the caller's object cannot change a stored record.
 */
export function copyObject(value: { readonly [key: string]: AuditValue }): { [key: string]: AuditValue } {
  const out: { [key: string]: AuditValue } = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = value[key];
    if (item === undefined) continue;
    // Plain assignment of "__proto__" would set the prototype instead of a key.
    if (key === '__proto__') {
      Object.defineProperty(out, key, { value: copyValue(item), enumerable: true, writable: true, configurable: true });
    } else {
      out[key] = copyValue(item);
    }
  }
  return out;
}
