import type { Agent, GatePort, RecordedCallRequest, RegisterToolsOutcome, ToolAdmission } from '@countersign/core/gate';
import type { AuthorizeOutcome } from '@countersign/core/gate';

/**
 * What the gateway needs of the approval service: a `Gate` (embedded) satisfies it.
 * Beyond the `GatePort` calls it registers the upstreams' tool definitions (the store
 * keeps them by digest and pins them) and asks whether each may be shown.
 */
export interface GatewayGate {
  port(agent?: Agent): GatePort;
  registerTools(definitions: unknown, agent?: Agent): Promise<RegisterToolsOutcome>;
  admitTool(toolName: string): Promise<ToolAdmission>;
  /** Checks 3 and 4: authorizes the recorded model call a `tools/call` claims to be. */
  authorizeRecorded(request: RecordedCallRequest, agent?: Agent): Promise<AuthorizeOutcome>;
}
