/**
 * `@countersign/mcp/config`: the gateway configuration alone (read, validate, resolve),
 * without the gateway, the MCP SDK or the HTTP front. A CLI that refuses a bad config
 * loads only this, so the refusal costs no gateway start-up.
 */
export {
  DEFAULT_GATEWAY_STORE_PATH,
  type GatewayApprovalService,
  type GatewayConfig,
  type GatewayConfigMode,
  type GatewayConfigResult,
  type GatewayHttpConfig,
  type GatewayStore,
  loadGatewayConfigFile,
  parseGatewayConfig,
} from './gateway-config.ts';
