import type { AuditEvent } from './types.ts';

const CALL_FIELDS = ['runId', 'sessionId', 'callId', 'proposalId', 'toolName', 'argsDigest'] as const;
type CallField = (typeof CALL_FIELDS)[number];

/**
 * The fields every record about one call repeats (run, session, call, proposal, tool,
 * argument digest), checked and JSON-encoded once: `problem` is why they are not
 * well-formed (undefined if they are), `json` their JSON string fragments.
 */
export interface CallFields {
  readonly values: Readonly<Record<CallField, unknown>>;
  readonly problem: string | undefined;
  readonly json: Readonly<Record<CallField, string | undefined>>;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

// One entry: the records of one call are built back to back (proposal and verdict, then
// dispatch, then result), so the last call's fields are the ones asked for next. Only
// strings are remembered, and a string's content cannot change, so a hit is exactly
// the answer a fresh check would give.
let last: CallFields | undefined;

/** The call fields of `event`, checked and encoded, reused while they are the same strings. */
export function callFieldsOf(event: AuditEvent): CallFields {
  const seen = last?.values;
  if (
    seen !== undefined &&
    seen.runId === event.runId &&
    seen.sessionId === event.sessionId &&
    seen.callId === event.callId &&
    seen.proposalId === event.proposalId &&
    seen.toolName === event.toolName &&
    seen.argsDigest === event.argsDigest
  ) {
    return last!;
  }
  const values = {} as Record<CallField, unknown>;
  const json = {} as Record<CallField, string | undefined>;
  let problem: string | undefined;
  let cacheable = true;
  for (const field of CALL_FIELDS) {
    const value: unknown = event[field];
    values[field] = value;
    if (value === undefined) continue;
    if (typeof value !== 'string') cacheable = false;
    const ok = field === 'argsDigest' ? typeof value === 'string' && HEX_SHA256.test(value) : typeof value === 'string' && value.isWellFormed();
    if (!ok) {
      problem ??= field === 'argsDigest' ? 'field "argsDigest" must be a lower-case hex SHA-256' : `field "${field}" must be a well-formed string`;
      continue;
    }
    json[field] = JSON.stringify(value);
  }
  const fields: CallFields = { values, problem, json };
  if (cacheable) last = fields;
  return fields;
}
