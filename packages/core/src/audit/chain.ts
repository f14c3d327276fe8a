import { hash as oneShotHash } from 'node:crypto';
import { flatCanonicalText } from '../canonical/flat-canonical.ts';
import { serializeCanonical } from '../canonical/serialize.ts';
import { AuditLogError } from './errors.ts';
import { type CallFields, callFieldsOf } from './call-fields.ts';
import { AUDIT_EVENT_TYPES, copyObject, isHexSha256, valueProblem } from './record-shape.ts';
import { formatProblem } from './record-format.ts';
import type { AuditEvent, AuditEventType, AuditHead, AuditRecord, AuditValue } from './types.ts';

const EVENT_TYPES: ReadonlySet<string> = new Set(AUDIT_EVENT_TYPES);

/** `prevHash` of the first record (seq 1). */
export const GENESIS_HASH = '0'.repeat(64);

const STRING_FIELDS = [
  'runId',
  'sessionId',
  'callId',
  'proposalId',
  'requestId',
  'toolName',
  'argsDigest',
  'actor',
  'reason',
] as const;

/**
 * The exact text that `hashRecord` hashes: RFC 8785 (JCS) of
 * `{ ...event, seq, prevHash }` with undefined fields omitted and `hash` excluded.
 *
 * Only the fields of `AuditEvent` are read: extra properties on `event` (such as a
 * record's own `seq`/`prevHash`/`hash`) are ignored. Throws TypeError where
 * `serializeCanonical` would: ill-typed fields, lone surrogates, non-finite numbers.
 */
export function canonicalRecordText(prevHash: string, seq: number, event: AuditEvent): string {
  if (!isEncodableString(prevHash) || !isEncodableString(event.type)) {
    throw new TypeError('prevHash and type must be well-formed strings');
  }
  if (!Number.isFinite(seq) || typeof seq !== 'number' || typeof event.at !== 'number' || !Number.isFinite(event.at)) {
    throw new TypeError('seq and at must be finite numbers');
  }
  for (const field of STRING_FIELDS) {
    const value = event[field];
    if (value !== undefined && !isEncodableString(value)) {
      throw new TypeError(`${field} must be a well-formed string`);
    }
  }
  return encodeChecked(prevHash, seq, event);
}

function isEncodableString(value: unknown): boolean {
  return typeof value === 'string' && value.isWellFormed();
}

/**
 * The canonical text, for input already known to be well-typed (validated records).
 *
 * Built by hand for the fixed top-level fields because it is on the hot path of
 * verification; `serializeCanonical` is used only for `detail`. The result is
 * byte-identical to `serializeCanonical` of the whole object (a property test holds
 * us to that) because:
 * - keys are emitted in UTF-16 code-unit order, which JCS requires;
 * - strings go through JSON.stringify, which is how JCS escapes them;
 * - numbers go through String(), which is JCS number formatting for finite numbers
 *   (including -0 → "0").
 * `type` is required and sorts last, so every earlier member can end with a comma.
 */
function encodeChecked(prevHash: string, seq: number, event: AuditEvent): string {
  const json = JSON.stringify;
  let text = '{';
  if (event.actor !== undefined) text += `"actor":${json(event.actor)},`;
  if (event.argsDigest !== undefined) text += `"argsDigest":${json(event.argsDigest)},`;
  text += `"at":${String(event.at)},`;
  if (event.callId !== undefined) text += `"callId":${json(event.callId)},`;
  if (event.detail !== undefined) text += `"detail":${encodeDetail(event.detail)},`;
  text += `"prevHash":${json(prevHash)},`;
  if (event.proposalId !== undefined) text += `"proposalId":${json(event.proposalId)},`;
  if (event.reason !== undefined) text += `"reason":${json(event.reason)},`;
  if (event.requestId !== undefined) text += `"requestId":${json(event.requestId)},`;
  if (event.runId !== undefined) text += `"runId":${json(event.runId)},`;
  text += `"seq":${String(seq)},`;
  if (event.sessionId !== undefined) text += `"sessionId":${json(event.sessionId)},`;
  if (event.toolName !== undefined) text += `"toolName":${json(event.toolName)},`;
  text += `"type":${json(event.type)}}`;
  return text;
}

/**
 * JCS of `detail`. The gate's own details are flat (a token id, a digest, a verdict): those
 * are written by flatCanonicalText, the way `encodeChecked` writes the top level; anything
 * else (nesting, a non-plain object, a lone surrogate, a non-finite number) goes to
 * `serializeCanonical`, which writes it or throws as it always did.
 */
function encodeDetail(detail: AuditEvent['detail'] & object): string {
  return flatCanonicalText(detail) ?? serializeCanonical(detail);
}

// Same bytes as sha256Hex (a test pins that), but the one-shot crypto.hash is several
// times cheaper than createHash for short inputs; with createHash, hashing alone would
// hold verification below 200,000 records/s.
function sha256HexFast(text: string): string {
  return oneShotHash('sha256', text, 'hex');
}

/**
 * SHA-256 (hex) of `canonicalRecordText(prevHash, seq, event)`: the `hash` of the record
 * at `seq` whose predecessor's hash is `prevHash`. Pure, so SQL stores can call it
 * inside their own transaction or lock.
 */
export function hashRecord(prevHash: string, seq: number, event: AuditEvent): string {
  return sha256HexFast(canonicalRecordText(prevHash, seq, event));
}

/**
 * `hashRecord(record.prevHash, record.seq, record)` without re-checking field types,
 * for the verifier, which has already run `auditRecordProblem` on the record.
 * Not part of the public API.
 */
export function hashValidatedRecord(record: AuditRecord): string {
  return sha256HexFast(encodeChecked(record.prevHash, record.seq, record));
}

/**
 * The record that follows `prev` (undefined for an empty log): seq = prev.seq + 1 or 1,
 * prevHash = prev.hash or GENESIS_HASH. Validates the event (AuditLogError
 * `invalid_event`) and copies only its known fields, deep-copying `detail`.
 */
export function buildRecord(prev: AuditHead | undefined, event: AuditEvent): AuditRecord {
  if (prev !== undefined) {
    if (!Number.isSafeInteger(prev.seq) || prev.seq < 1 || !Number.isSafeInteger(prev.seq + 1) || !isHexSha256(prev.hash)) {
      throw new AuditLogError('invalid_argument', 'previous head must have a positive integer seq and a hex SHA-256 hash');
    }
  }
  return chainedRecord(prev, event);
}

/**
 * `buildRecord` after a record this process built itself (a MemoryAuditLog's own last
 * record, frozen since): its seq and hash came out of `buildRecord`, so they are not
 * checked again. The event is validated as always. Not part of the public API.
 */
export function buildRecordAfter(prev: Pick<AuditRecord, 'seq' | 'hash'> | undefined, event: AuditEvent): AuditRecord {
  return chainedRecord(prev, event);
}

function invalid(problem: string): AuditLogError {
  return new AuditLogError('invalid_event', `invalid audit event: ${problem}`);
}

/** A well-formed optional string field, read once; throws `invalid_event` otherwise. */
function optionalString(field: string, value: unknown): string | undefined {
  if (value === undefined || (typeof value === 'string' && value.isWellFormed())) return value;
  throw invalid(`field "${field}" must be a well-formed string`);
}

/**
 * Validates `event` and builds its record in one pass: every field is read once, checked,
 * copied and written into the canonical text from that one value (the same checks as
 * auditEventProblem; a getter cannot show the check one value and the record another).
 * The call fields are checked and encoded once per call (callFieldsOf), a flat `detail`
 * is copied and written by flatCanonicalText, and the text is the one `encodeChecked`
 * writes (a property test holds the hash to `hashRecord`'s).
 */
function chainedRecord(prev: Pick<AuditRecord, 'seq' | 'hash'> | undefined, event: AuditEvent): AuditRecord {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) throw invalid('not a JSON object');
  const e = event as { readonly [K in keyof AuditEvent]: unknown };
  const type = e.type;
  const at = e.at;
  if (!(typeof type === 'string' && EVENT_TYPES.has(type))) throw invalid('field "type" must be a known event type');
  if (!(typeof at === 'number' && Number.isFinite(at))) throw invalid('field "at" must be a finite number');
  const call = callFieldsOf(event);
  if (call.problem !== undefined) throw invalid(call.problem);
  const requestId = optionalString('requestId', e.requestId);
  const actor = optionalString('actor', e.actor);
  const reason = optionalString('reason', e.reason);
  const detail = e.detail === undefined ? undefined : checkedDetail(e.detail);

  const seq = prev === undefined ? 1 : prev.seq + 1;
  // prev.hash is hex (checked by buildRecord, or this process's own record), as is GENESIS_HASH.
  const prevHash = prev === undefined ? GENESIS_HASH : prev.hash;
  // With a reason, the detail is added after it: records keep the member order they always had.
  const record = newRecord(seq, prevHash, type as AuditEventType, at, call, requestId, actor, reason === undefined ? detail?.copy : undefined);
  if (reason !== undefined) {
    record.reason = reason;
    if (detail !== undefined) record.detail = detail.copy;
  }
  // What the verifier holds a record of its type and format to: never written, rather than flagged later.
  const problem = formatProblem(record);
  if (problem !== undefined) throw invalid(problem);

  // encodeChecked's text, from the values just checked: keys in UTF-16 order, `type` last.
  // prevHash (hex), type (a known type name) and `at`/`seq` (String() of finite numbers) need no escaping.
  // Whole pieces joined once (absent members are ''): `+=` of templates left a chain of ~40
  // cons strings per record, which hashing then flattened (both garbage); join writes the
  // flat text directly, from one array.
  const text = [
    '{',
    actor === undefined ? '' : actorMember(actor),
    call.argsDigestMember,
    '"at":',
    at,
    ',',
    call.callIdMember,
    detail === undefined ? '' : '"detail":',
    detail === undefined ? '' : detail.text,
    detail === undefined ? '' : ',',
    '"prevHash":"',
    prevHash,
    '",',
    call.proposalIdMember,
    reason === undefined ? '' : `"reason":${JSON.stringify(reason)},`,
    requestId === undefined ? '' : `"requestId":${JSON.stringify(requestId)},`,
    call.runIdMember,
    '"seq":',
    seq,
    ',',
    call.sessionAndTool,
    '"type":"',
    type,
    '"}',
  ].join('');
  record.hash = sha256HexFast(text);
  return record;
}

// The actor (the principal) is the same on every record about a call: its member is
// encoded once while it stays the same string (a string's content cannot change).
let lastActor: string | undefined;
let lastActorMember = '';

function actorMember(actor: string): string {
  if (actor !== lastActor) {
    lastActorMember = `"actor":${JSON.stringify(actor)},`;
    lastActor = actor;
  }
  return lastActorMember;
}

/**
 * The record's fields in the order records have always read (seq, prevHash and hash first;
 * absent ones stay absent). A record about a call (every call field and the actor present,
 * as the gate writes them) is one object literal: one allocation of the right size instead
 * of a small object grown field by field. `detail` is in the literal too: added afterwards,
 * it would not fit the literal's in-object slots and cost every such record (both records of
 * every dispatch) a separate property array, retained as long as the log (~40 B each).
 */
function newRecord(
  seq: number,
  prevHash: string,
  type: AuditEventType,
  at: number,
  call: CallFields,
  requestId: string | undefined,
  actor: string | undefined,
  detail: { [key: string]: AuditValue } | undefined,
): AuditRecord {
  const { runId, sessionId, callId, proposalId, toolName, argsDigest } = call as { readonly [K in keyof CallFields]: string | undefined };
  if (runId !== undefined && sessionId !== undefined && callId !== undefined && proposalId !== undefined && toolName !== undefined && argsDigest !== undefined && actor !== undefined) {
    if (detail === undefined) {
      if (requestId === undefined) return { seq, prevHash, hash: '', type, at, runId, sessionId, callId, proposalId, toolName, argsDigest, actor };
      return { seq, prevHash, hash: '', type, at, runId, sessionId, callId, proposalId, requestId, toolName, argsDigest, actor };
    }
    if (requestId === undefined) return { seq, prevHash, hash: '', type, at, runId, sessionId, callId, proposalId, toolName, argsDigest, actor, detail };
    return { seq, prevHash, hash: '', type, at, runId, sessionId, callId, proposalId, requestId, toolName, argsDigest, actor, detail };
  }
  const record = { seq, prevHash, hash: '', type, at } as AuditRecord;
  if (runId !== undefined) record.runId = runId;
  if (sessionId !== undefined) record.sessionId = sessionId;
  if (callId !== undefined) record.callId = callId;
  if (proposalId !== undefined) record.proposalId = proposalId;
  if (requestId !== undefined) record.requestId = requestId;
  if (toolName !== undefined) record.toolName = toolName;
  if (argsDigest !== undefined) record.argsDigest = argsDigest;
  if (actor !== undefined) record.actor = actor;
  if (detail !== undefined) record.detail = detail;
  return record;
}

/**
 * `detail` validated, copied (the record never shares it with the caller) and written as
 * JCS. A flat detail (the gate's own: a token id, a digest, a verdict) is copied first and
 * written from the copy; anything else is validated as a whole, deep-copied and serialized.
 */
function checkedDetail(detail: unknown): { copy: { [key: string]: AuditValue }; text: string } {
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) throw invalid('field "detail" must be a JSON object');
  const flat = flatDetail(detail);
  if (flat !== undefined) return flat;
  const problem = valueProblem(detail, 1);
  if (problem !== undefined) throw invalid(`field "detail"${problem}`);
  const copy = copyObject(detail as { readonly [key: string]: AuditValue });
  return { copy, text: serializeCanonical(copy) };
}

/**
 * A flat detail (a plain object whose own members are all well-formed strings, finite
 * numbers, booleans or null; undefined ones left out) copied and written as JCS, else
 * undefined (the caller validates it the general way). The text is flatCanonicalText's
 * of the copy; the gate's own details have one member (a token id, a result digest), and
 * that text is written directly, without the key array and cons strings (two of these run
 * on every dispatch).
 */
function flatDetail(detail: object): { copy: { [key: string]: AuditValue }; text: string } | undefined {
  const proto: unknown = Object.getPrototypeOf(detail);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const source = detail as { readonly [key: string]: unknown };
  const out: { [key: string]: AuditValue } = {};
  let members = 0;
  let onlyKey = '';
  let onlyItem: string | number | boolean | null = null;
  for (const key in source) {
    if (!Object.hasOwn(source, key)) continue;
    const item = source[key];
    if (item === undefined) continue;
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean' && item !== null) return undefined;
    // Plain assignment of "__proto__" would set the prototype instead of a key.
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
    members++;
    onlyKey = key;
    onlyItem = item;
  }
  const text = members === 1 && typeof out.toJSON !== 'function' ? oneMemberText(onlyKey, onlyItem) : flatCanonicalText(out);
  return text === undefined ? undefined : { copy: out, text };
}

/** flatCanonicalText of `{ [key]: item }` (undefined where it gives undefined). */
function oneMemberText(key: string, item: string | number | boolean | null): string | undefined {
  if (!key.isWellFormed()) return undefined;
  if (typeof item === 'string') return item.isWellFormed() ? ['{', JSON.stringify(key), ':', JSON.stringify(item), '}'].join('') : undefined;
  if (typeof item === 'number' && !Number.isFinite(item)) return undefined;
  return ['{', JSON.stringify(key), ':', String(item), '}'].join('');
}
