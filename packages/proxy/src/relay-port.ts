import type { Agent, GatePort } from '@countersign/core/gate';

export type { RelayCheckOutcome, RelayedToolMessage, RelayFailure } from '@countersign/core/gate';

/**
 * The gate operations the proxy uses: recording a response's calls (check 2) and the
 * outputs of the provider's hosted tools, checking relayed results (check 5), and reporting a request part it refused for its shape
 * (deny by default for shapes, audited as `unknown_shape`).
 */
export type RelayPort = Pick<GatePort, 'propose' | 'checkRelayed' | 'reportRefusal' | 'recordProviderOutput'>;

/** Where the proxy gets a port bound to the authenticated agent: an embedded `Gate`, or a client of the approval service. */
export interface RelayGate {
  port(agent: Agent): RelayPort;
}
