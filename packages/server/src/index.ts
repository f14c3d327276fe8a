export {
  type AuthConfig,
  createApp,
  type ServerOptions,
  type ServerTuning,
  type ThrottleTuning,
  type WebhookOptions,
} from './app/create-app.ts';
export type { AppEnv } from './app/env.ts';
export { DEFAULT_BODY_LIMIT_BYTES, ServerConfigError, type ServerConfigErrorCode } from './app/options.ts';
export type { ApiErrorBody, ApiErrorCode } from './errors/api-error.ts';
export { ApiError } from './errors/api-error.ts';
export type { AgentIdentity, ApproverIdentity, Identity } from './auth/identity.ts';
export { type ChainStatus, chainStatus } from './audit/chain-status.ts';
export { type RunningServer, type StartServerOptions, startServer } from './serve/start-server.ts';
export { CONTENT_SECURITY_POLICY } from './http/security-headers.ts';
export type { CallDisplay } from './views/call-display.ts';
export type { ApprovalView, DecisionView, EditedCallView } from './views/request-views.ts';
export {
  SIGNATURE_HEADER,
  signWebhook,
  TIMESTAMP_HEADER,
  type WebhookVerification,
  verifyWebhookSignature,
} from './webhook/signature.ts';
export type { WebhookPayload } from './webhook/webhook-notifier.ts';
export { type DeliveryReport, WebhookSender, type WebhookSenderOptions } from './webhook/webhook-sender.ts';
export type { WebhookEventType } from './webhook/webhook-payload.ts';
export { slackMessage } from './webhook/slack-payload.ts';
export { ServerMetrics } from './ops/metrics.ts';
export { type StoreObserver, timedLedger } from './ops/timed-ledger.ts';
export { createLogger } from './ops/logger.ts';
export { openApiDocument } from './openapi/openapi-document.ts';
// What the `countersign` command (@countersign/cli) builds on to run this library as a service.
export { type McpMount, mcpPathProblem } from './app/options.ts';
export { checkCanListen, closeServer, isLoopback, listen, localUrl } from './serve/listen.ts';
export { ServeError, type ServeErrorCode } from './serve/serve-error.ts';
export { timeOrderedId } from './serve/time-ordered-id.ts';
export { LOG_LEVELS } from './ops/logger.ts';
export { publicKeyId } from './passkey/public-key.ts';
export { offlineAssertionCheck, webauthnVerifier } from './passkey/webauthn-verifier.ts';
