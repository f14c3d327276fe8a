import type { AuditEvent } from './types.ts';

/**
 * The fields every record about one call repeats (run, session, call, proposal, tool,
 * argument digest), each read once, checked and JSON-encoded: `problem` is why they are
 * not well-formed (undefined if they are), the `…Member` fields their members of the
 * canonical text, key and trailing comma included (`"callId":"c1",`; '' for an absent
 * field), so a record's text is joined from whole pieces without concatenating per record.
 * `sessionAndTool` is the two adjacent members written together (`"sessionId":…,"toolName":…,`),
 * since both are on every record about a call.
 */
export interface CallFields {
  readonly runId: unknown;
  readonly sessionId: unknown;
  readonly callId: unknown;
  readonly proposalId: unknown;
  readonly toolName: unknown;
  readonly argsDigest: unknown;
  readonly problem: string | undefined;
  readonly runIdMember: string;
  readonly callIdMember: string;
  readonly proposalIdMember: string;
  readonly argsDigestMember: string;
  readonly sessionAndTool: string;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

// One entry: the records of one call are built back to back (proposal and verdict, then
// dispatch, then result), so the last call's fields are the ones asked for next. Only
// strings are remembered, and a string's content cannot change, so a hit is exactly
// the answer a fresh check would give.
let last: CallFields | undefined;

/** The call fields of `event`, checked and encoded, reused while they are the same strings. */
export function callFieldsOf(event: AuditEvent): CallFields {
  // Each field read once: what is checked is what is encoded (a getter cannot answer twice).
  const { runId, sessionId, callId, proposalId, toolName, argsDigest } = event as { readonly [K in keyof AuditEvent]: unknown };
  const seen = last;
  if (
    seen !== undefined &&
    seen.runId === runId &&
    seen.sessionId === sessionId &&
    seen.callId === callId &&
    seen.proposalId === proposalId &&
    seen.toolName === toolName &&
    seen.argsDigest === argsDigest
  ) {
    return seen;
  }
  // Straight-line (no closure: this runs on the first record of every call).
  const runIdJson = encodeId(runId);
  const sessionIdJson = encodeId(sessionId);
  const callIdJson = encodeId(callId);
  const proposalIdJson = encodeId(proposalId);
  const toolNameJson = encodeId(toolName);
  // Lower-case hex needs no escaping.
  const argsDigestJson = argsDigest === undefined ? undefined : typeof argsDigest === 'string' && HEX_SHA256.test(argsDigest) ? `"${argsDigest}"` : null;
  // The first field that is not well-formed, in field order.
  let problem: string | undefined;
  if (runIdJson === null) problem = wellFormed('runId');
  else if (sessionIdJson === null) problem = wellFormed('sessionId');
  else if (callIdJson === null) problem = wellFormed('callId');
  else if (proposalIdJson === null) problem = wellFormed('proposalId');
  else if (toolNameJson === null) problem = wellFormed('toolName');
  else if (argsDigestJson === null) problem = 'field "argsDigest" must be a lower-case hex SHA-256';
  const fields: CallFields = {
    runId,
    sessionId,
    callId,
    proposalId,
    toolName,
    argsDigest,
    problem,
    runIdMember: runIdJson ? `"runId":${runIdJson},` : '',
    callIdMember: callIdJson ? `"callId":${callIdJson},` : '',
    proposalIdMember: proposalIdJson ? `"proposalId":${proposalIdJson},` : '',
    argsDigestMember: argsDigestJson ? `"argsDigest":${argsDigestJson},` : '',
    sessionAndTool: (sessionIdJson ? `"sessionId":${sessionIdJson},` : '') + (toolNameJson ? `"toolName":${toolNameJson},` : ''),
  };
  // Only strings (or absent fields) are remembered: another value could compare equal and differ.
  const cacheable =
    (runId === undefined || typeof runId === 'string') &&
    (sessionId === undefined || typeof sessionId === 'string') &&
    (callId === undefined || typeof callId === 'string') &&
    (proposalId === undefined || typeof proposalId === 'string') &&
    (toolName === undefined || typeof toolName === 'string') &&
    (argsDigest === undefined || typeof argsDigest === 'string');
  if (cacheable) last = fields;
  return fields;
}

/** JSON of an optional id field: undefined when absent, null when not a well-formed string. */
function encodeId(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  return typeof value === 'string' && value.isWellFormed() ? JSON.stringify(value) : null;
}

function wellFormed(field: string): string {
  return `field "${field}" must be a well-formed string`;
}
