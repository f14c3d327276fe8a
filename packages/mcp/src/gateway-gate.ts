import type { Agent, GatePort, RecordedCallRequest, RegisterToolsOutcome, ToolAdmission } from '@countersign/core/gate';
import type { ToolVisibility } from '@countersign/core/policy';
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
  /**
   * Whether policy denies the tool to the principal whatever the arguments: such a tool is
   * left out of `tools/list` (a call to it is still refused with its reason). A gate
   * without it shows every admitted tool.
   */
  toolVisibility?(toolName: string, principal: string): Promise<ToolVisibility>;
  /** Checks 3 and 4: authorizes the recorded model call a `tools/call` claims to be. */
  authorizeRecorded(request: RecordedCallRequest, agent?: Agent): Promise<AuthorizeOutcome>;
}
