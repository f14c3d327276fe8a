import type { CountersignClient } from '@countersign/client';
import type { Agent, AuthorizeOutcome, GatePort, MatchingCallRequest, RegisterToolsOutcome, ToolAdmission, ToolDefinition } from '@countersign/core/gate';
import type { ToolVisibility } from '@countersign/core/policy';

/**
 * What the gateway needs of the approval service: a `Gate` (embedded) satisfies it, and
 * `remoteGatewayGate` gives it over HTTP. Beyond the `GatePort` calls it registers the
 * upstreams' tool definitions (the store keeps them by digest and pins them) and asks
 * whether each may be shown.
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
  authorizeMatchingCall(request: MatchingCallRequest, agent?: Agent): Promise<AuthorizeOutcome>;
}

/**
 * A Countersign server as the gateway's approval service (`approvalService` in the
 * config): every step goes over its agent API with the gateway's agent token. The agent
 * is the token's: the `agent` arguments the gateway passes are not sent (the server
 * decides who is asking), so runs, registered tools and reviews are that agent's only.
 */
export function remoteGatewayGate(client: CountersignClient): GatewayGate {
  return {
    port: () => client,
    // The upstreamTools passes definitions it built itself from an upstream listing; the client checks their shape again.
    registerTools: (definitions) => client.registerTools(definitions as readonly ToolDefinition[]),
    admitTool: (toolName) => client.admitTool(toolName),
    // No `toolVisibility`: the server has no route for it yet, so the gateway shows every admitted tool (a call to a denied one is still refused).
    authorizeMatchingCall: (request) => client.authorizeMatchingCall(request),
  };
}
