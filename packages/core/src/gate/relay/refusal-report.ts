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
