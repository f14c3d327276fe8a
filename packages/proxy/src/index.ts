export { type AgentToken, agentTokens, type Authenticate, type ProxyIdentity } from './authenticate.ts';
export { createProxy, type ProxyOptions } from './create-proxy.ts';
export { PRINCIPAL_HEADER, RUN_HEADER, SESSION_HEADER } from './headers.ts';
export type { ModelCall } from './model-call.ts';
export type { RelayCheckOutcome, RelayedToolMessage, RelayFailure, RelayGate, RelayPort } from './relay-port.ts';
export type { ProxyError, ProxyErrorBody } from './refusal.ts';
export { type RunningProxy, type StartProxyOptions, startProxy } from './start-proxy.ts';
export type { UpstreamConfig } from './upstream.ts';
export { DEFAULT_PROXY_STORE_PATH, loadProxyConfigFile, type ProxyConfig, type ProxyConfigResult, type ProxyStore, parseProxyConfig } from './config/proxy-config.ts';
