import type { Agent } from '@countersign/core/gate';
import type { RelayPort } from './relay-port.ts';

/** Who a request is for: the authenticated agent's port, and the run the agent named in its headers. */
export interface RunContext {
  port: RelayPort;
  agent: Agent;
  runId: string;
  sessionId: string;
  principal: string;
}
