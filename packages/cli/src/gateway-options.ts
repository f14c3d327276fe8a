import type { GatewayConfig, GatewayOptions } from '@countersign/mcp';

/**
 * The `createGateway` options a gateway config file sets, for `countersign mcp` and for
 * `countersign serve --mcp` alike. The caller adds what the config does not decide: the gate,
 * the agent the gateway acts as, and (serve) where approval links point.
 */
export function gatewayOptionsOf(config: GatewayConfig): Omit<GatewayOptions, 'gate' | 'agent'> {
  return {
    upstreams: config.upstreams,
    principal: config.principal,
    calls: config.calls,
    runId: config.runId,
    sessionId: config.sessionId,
    namespaced: config.namespaced,
    approvalWaitMs: config.approvalWaitMs,
    elicitationWaitMs: config.elicitationWaitMs,
    progressIntervalMs: config.progressIntervalMs,
    approvalUrl: config.approvalUrl,
    relistBeforeCall: config.relistBeforeCall,
    maxMessageBytes: config.maxMessageBytes,
  };
}
