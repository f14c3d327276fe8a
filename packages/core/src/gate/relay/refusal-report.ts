/**
 * What an integration reports when it refused something that never reached the gate:
 * a message of a shape it cannot check (deny by default for shapes). The gate writes it
 * to the audit trail, so a refusal made agent-side is as visible as one made here.
 */

/** Why the integration refused. One value today; a union so that more can be added without a new operation. */
export type IntegrationRefusalReason = 'unknown_shape';

export interface RefusalReport {
  runId: string;
  sessionId?: string | undefined;
  /** On whose behalf the agent acts. */
  principal?: string | undefined;
  /** The tool call the refused message was about, when it named one. */
  callId?: string | undefined;
  reason: IntegrationRefusalReason;
  /**
   * What was refused, in a few words (e.g. `a model request input item of type
   * computer_call_result`): the shape, never the content. At most 300 characters.
   */
  detail: string;
}

export type RefusalReportOutcome =
  | { ok: true }
  /** `not_found`: the run belongs to another agent (an agent writes only into its own runs' trail). */
  | { ok: false; reason: 'invalid_request' | 'not_found' | 'store_unavailable'; message: string };

export const MAX_REFUSAL_DETAIL = 300;
