/**
 * What an integration reports when it refused something that never reached the gate:
 * a message of a shape it cannot check (deny by default for shapes). The gate writes it
 * to the audit trail, so a refusal made agent-side is as visible as one made here.
 */

/**
 * Why the integration refused:
 * - `unknown_shape`: a message of a shape it cannot check (audited only);
 * - `call_refused`: it refused the call `callId` of the run, which never ran, and `detail`
 *   is the exact refusal text it gave (the MCP gateway's "Countersign refused …"): audited,
 *   and recorded in the ledger for that call, so a runtime relaying that refusal back to the
 *   model is recognised by the ledger (`checkRelayed`), never by the text's format.
 */
export type IntegrationRefusalReason = 'unknown_shape' | 'call_refused';

export interface RefusalReport {
  runId: string;
  sessionId?: string | undefined;
  /** On whose behalf the agent acts. */
  principal?: string | undefined;
  /** The tool call the refused message was about, when it named one. */
  callId?: string | undefined;
  reason: IntegrationRefusalReason;
  /**
   * `unknown_shape`: what was refused, in a few words (e.g. `a model request input item of
   * type computer_call_result`): the shape, never the content. `call_refused`: the refusal
   * text exactly as the integration gave it. At most 300 characters.
   */
  detail: string;
}

export type RefusalReportOutcome =
  | { ok: true }
  /** `not_found`: the run belongs to another agent (an agent writes only into its own runs' trail). */
  | { ok: false; reason: 'invalid_request' | 'not_found' | 'store_unavailable'; message: string };

export const MAX_REFUSAL_DETAIL = 300;

/** What a report's detail may not hold (it is shown in audit views): control and format characters. */
export const UNPRINTABLE_IN_DETAIL = /[\p{Cc}\p{Cf}]/u;

/**
 * `text` fitted for a `call_refused` report whose detail is `prefix` + text: what an
 * integration gives as its refusal when a runtime relays it behind a prefix of its own
 * (the Claude runtime's `PreToolUse:<tool> hook error: `). Control and format characters
 * read as spaces, and a text too long is cut, ending in `…`, so the whole detail fits in
 * MAX_REFUSAL_DETAIL: the refusal the model reads is then exactly the one the ledger can
 * record. Undefined when the prefix leaves no room or is not printable itself.
 */
export function recordableRefusalText(text: string, prefix = ''): string | undefined {
  const room = MAX_REFUSAL_DETAIL - prefix.length;
  if (room < 1 || !prefix.isWellFormed() || UNPRINTABLE_IN_DETAIL.test(prefix)) return undefined;
  const printable = text.toWellFormed().replace(new RegExp(UNPRINTABLE_IN_DETAIL.source, 'gu'), ' ');
  if (printable.length === 0) return undefined;
  if (printable.length <= room) return printable;
  // Cut by code points, so a surrogate pair is never split.
  let cut = '';
  for (const char of printable) {
    if (cut.length + char.length > room - 1) break;
    cut += char;
  }
  return `${cut}…`;
}
