import { hash as oneShotHash } from 'node:crypto';
import { flatCanonicalText } from '../canonical/flat-canonical.ts';
import { serializeCanonical } from '../canonical/serialize.ts';
import { AuditLogError } from './errors.ts';
import { type CallFields, callFieldsOf } from './call-fields.ts';
import { copyAuditEvent, eventProblemBeyondCallFields, isHexSha256 } from './record-shape.ts';
import type { AuditEvent, AuditHead, AuditRecord } from './types.ts';

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
function encodeChecked(prevHash: string, seq: number, event: AuditEvent, call?: CallFields['json']): string {
  const json = JSON.stringify;
  let text = '{';
  if (event.actor !== undefined) text += `"actor":${json(event.actor)},`;
  if (event.argsDigest !== undefined) text += `"argsDigest":${call?.argsDigest ?? json(event.argsDigest)},`;
  text += `"at":${String(event.at)},`;
  if (event.callId !== undefined) text += `"callId":${call?.callId ?? json(event.callId)},`;
  if (event.detail !== undefined) text += `"detail":${encodeDetail(event.detail)},`;
  text += `"prevHash":${json(prevHash)},`;
  if (event.proposalId !== undefined) text += `"proposalId":${call?.proposalId ?? json(event.proposalId)},`;
  if (event.reason !== undefined) text += `"reason":${json(event.reason)},`;
  if (event.requestId !== undefined) text += `"requestId":${json(event.requestId)},`;
  if (event.runId !== undefined) text += `"runId":${call?.runId ?? json(event.runId)},`;
  text += `"seq":${String(seq)},`;
  if (event.sessionId !== undefined) text += `"sessionId":${call?.sessionId ?? json(event.sessionId)},`;
  if (event.toolName !== undefined) text += `"toolName":${call?.toolName ?? json(event.toolName)},`;
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
  const call = checkedCallFields(event);
  if (prev !== undefined) {
    if (!Number.isSafeInteger(prev.seq) || prev.seq < 1 || !Number.isSafeInteger(prev.seq + 1) || !isHexSha256(prev.hash)) {
      throw new AuditLogError('invalid_argument', 'previous head must have a positive integer seq and a hex SHA-256 hash');
    }
  }
  return chainedRecord(prev, event, call);
}

/**
 * `buildRecord` after a record this process built itself (a MemoryAuditLog's own last
 * record, frozen since): its seq and hash came out of `buildRecord`, so they are not
 * checked again. The event is validated as always. Not part of the public API.
 */
export function buildRecordAfter(prev: Pick<AuditRecord, 'seq' | 'hash'> | undefined, event: AuditEvent): AuditRecord {
  return chainedRecord(prev, event, checkedCallFields(event));
}

/** Validates `event` (AuditLogError `invalid_event`); its call fields, checked and encoded once per call. */
function checkedCallFields(event: AuditEvent): CallFields {
  // The shape first: it is what refuses a non-object before any field is read.
  const shape = eventProblemBeyondCallFields(event);
  const call = shape === undefined ? callFieldsOf(event) : undefined;
  const problem = shape ?? call?.problem;
  if (problem !== undefined || call === undefined) throw new AuditLogError('invalid_event', `invalid audit event: ${problem}`);
  return call;
}

function chainedRecord(prev: Pick<AuditRecord, 'seq' | 'hash'> | undefined, event: AuditEvent, call: CallFields): AuditRecord {
  const seq = prev === undefined ? 1 : prev.seq + 1;
  const prevHash = prev === undefined ? GENESIS_HASH : prev.hash;
  // The record is the copy itself (seq, prevHash and hash first, as records read), so
  // the event's fields are copied once; its hash is filled in from the same fields.
  const record = copyAuditEvent(event, { seq, prevHash, hash: '' } as AuditRecord);
  record.hash = sha256HexFast(encodeChecked(prevHash, seq, record, call.json));
  return record;
}
