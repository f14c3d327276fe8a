/** Longest agent context on a proposal (`ProposalInput.context`), in UTF-16 code units. */
export const MAX_PROPOSAL_CONTEXT_LENGTH = 2000;

/**
 * Why a call's `context` (the agent's own words about it) cannot be recorded, or undefined.
 * Any text is allowed (it is shown with escapes, never trusted), but it must be a
 * well-formed string and bounded: a page of prose must not bury the call it sits next to.
 */
export function contextProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !value.isWellFormed()) return 'context must be a well-formed string';
  if (value.length > MAX_PROPOSAL_CONTEXT_LENGTH) return `context must be at most ${MAX_PROPOSAL_CONTEXT_LENGTH} characters (got ${value.length})`;
  return undefined;
}

/** Longest accepted id (run, session, principal, call, tool name), in UTF-16 code units. */
export const MAX_ID_LENGTH = 256;

// \p{Cc}: C0 controls, DEL and C1 controls; the bidirectional overrides, embeddings, isolates and
// marks ("Trojan Source": text an approver reads in one order, stored in another); and the
// line/paragraph separators, which split log lines. NUL matters most: C strings, HMAC
// key padding and some databases treat "r" and "r\u0000" as one id.
const REFUSED_CHARACTERS = /[\p{Cc}\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

/**
 * Why an id cannot name anything in a call, or undefined when it can. Ids are hashed into
 * tokens, decision records and the audit chain, and shown to approvers, so each must be
 * non-empty, well-formed (no lone surrogates), bounded, and free of control characters.
 */
export function idProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ID_LENGTH || !value.isWellFormed()) {
    return `${field} must be a non-empty, well-formed string of at most ${MAX_ID_LENGTH} characters`;
  }
  const refused = REFUSED_CHARACTERS.exec(value);
  if (refused !== null) {
    const code = refused[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `${field} must not contain control or bidirectional-formatting characters (U+${code} at index ${refused.index})`;
  }
  return undefined;
}
