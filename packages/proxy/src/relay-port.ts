import type { Agent, GatePort } from '@countersign/core/gate';

/** One tool result the runtime relays back to the model: the model's call id and the content as relayed. */
export interface RelayedToolMessage {
  callId: string;
  content: unknown;
}

/** Why one relayed tool result was refused (CASA check 5). */
export interface RelayFailure {
  callId: string;
  reason: 'unknown_call' | 'not_executed' | 'result_mismatch';
  message: string;
  proposalId?: string | undefined;
}

/** core's answer to `checkRelayed`: every relayed result matched its recorded result, or why not. */
export type RelayCheckOutcome =
  | { ok: true; checked: number }
  | { ok: false; reason: 'relay_refused'; message: string; failures: RelayFailure[] }
  | { ok: false; reason: 'invalid_request' | 'store_unavailable'; message: string };

/** The gate operations the proxy uses: recording calls (check 2) and checking relayed results (check 5). */
export interface RelayPort extends Pick<GatePort, 'propose'> {
  checkRelayed(request: { runId: string; toolMessages: RelayedToolMessage[] }): Promise<RelayCheckOutcome>;
}

/** Where the proxy gets a port bound to the authenticated agent (an embedded `Gate` or an HTTP client). */
export interface RelayGate {
  port(agent: Agent): RelayPort;
}
