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
} from './config/gateway-config.ts';
export { type CallContext, callTool } from './call-tool.ts';
export { GatewayError, type ServedTool, UpstreamTools } from './upstream-tools.ts';
export { type HttpFront, type HttpFrontOptions, startHttpFront } from './http-front.ts';
export { isLoopback } from './front-refusal.ts';
export { createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
export { type GatewayGate, remoteGatewayGate } from './gateway-gate.ts';
export { type ApprovalChannel, type ApprovalSettings, guardWithApproval, type WaitedStep } from './await-approval.ts';
export { NAMESPACE_SEPARATOR, type ToolNaming, toolNaming, upstreamNameProblem } from './names.ts';
export { OFFERED_META, TASK_ID_META, TASK_META, taskFromMeta } from './task-meta.ts';
export { CALL_ID_META, type CallMode, RUN_HEADER, RUN_ID_META, type RecordedSettings, recordedTarget, runFromHeaders, SESSION_ID_META } from './recorded-call.ts';
export { approvalLink, type CountersignRefusal, refusalResult } from './refusal.ts';
export { connectUpstream, type Upstream, type UpstreamConfig } from './upstream.ts';
export { type GatewayWebHandler, type GatewayWebHandlerOptions, gatewayWebHandler } from './web-front.ts';
export { type ModernFront, type ModernFrontOptions, modernGatewayFront } from './modern-front.ts';
export { applyLock, type GatewayLock, LOCKFILE_VERSION, type LockResult, lockText, lockUpstreams, parseLock, readLockFile } from './lock.ts';
export { CompletionRelay } from './completions.ts';
export { PromptRelay } from './prompts.ts';
export { ResourceRouter } from './resources.ts';
