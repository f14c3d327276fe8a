import { DEFAULT_LIMITS } from '@countersign/core/canonical';
import { Hono } from 'hono';
import { proposalRoutes } from '../api/agent/proposals.ts';
import { authorizeRoutes } from '../api/agent/authorize.ts';
import { callRoutes } from '../api/agent/calls.ts';
import { relayedRoutes } from '../api/agent/relayed.ts';
import { refusalRoutes } from '../api/agent/refusals.ts';
import { providerOutputRoutes } from '../api/agent/provider-outputs.ts';
import { completeRoutes } from '../api/agent/complete.ts';
import { dispatchRoutes } from '../api/agent/dispatch.ts';
import { toolRoutes } from '../api/agent/tools.ts';
import { requestRoutes } from '../api/agent/requests.ts';
import { approvalRoutes } from '../api/approver/approvals.ts';
import { auditRoutes } from '../api/approver/audit.ts';
import { decisionRoutes } from '../api/approver/decisions.ts';
import { agentOf } from '../auth/agent-of.ts';
import { Authenticator } from '../auth/authenticator.ts';
import { requireAgent } from '../auth/require-identity.ts';
import { Sessions } from '../auth/sessions.ts';
import { createThrottles } from '../auth/throttles.ts';
import { ApiError } from '../errors/api-error.ts';
import { toApiError } from '../errors/to-api-error.ts';
import { logGateEvents } from '../ops/event-log.ts';
import { ServerMetrics } from '../ops/metrics.ts';
import { opsRoutes } from '../ops/ops-routes.ts';
import { openApiRoute } from '../openapi/openapi-route.ts';
import { requestLog } from '../ops/request-log.ts';
import { pino } from 'pino';
import { bodyLimit } from '../http/body-limit.ts';
import { securityHeaders } from '../http/security-headers.ts';
import { errorPage } from '../ui/pages/error-page.ts';
import { approvalPages } from '../ui/routes/approval-pages.ts';
import { assetRoutes } from '../ui/routes/assets.ts';
import { auditPageRoute } from '../ui/routes/audit-page-route.ts';
import { sessionRoutes } from '../ui/routes/session-routes.ts';
import { notifyByWebhook } from '../webhook/webhook-notifier.ts';
import { deliveryHealth } from '../webhook/delivery-health.ts';
import { WebhookSender } from '../webhook/webhook-sender.ts';
import type { AppEnv } from './env.ts';
import {
  DEFAULT_BODY_LIMIT_BYTES,
  mcpPathProblem,
  resolvePublicOrigin,
  ServerConfigError,
  resolveTuning,
  type ServerOptions,
  validateAuthConfig,
  type WebhookOptions,
} from './options.ts';
import type { Services } from './services.ts';
import { ChainStatusCache } from '../audit/chain-status-cache.ts';
import { passkeyServices } from '../passkey/passkey-services.ts';
import { passkeyRoutes } from '../ui/routes/passkey-routes.ts';
import { passkeyApiRoutes } from '../api/approver/passkeys.ts';

export type { AuthConfig, McpMount, ServerOptions, ServerTuning, ThrottleTuning, WebhookOptions } from './options.ts';

// Levels a request body adds around tool arguments (body → toolCalls → call → arguments).
const ENVELOPE_DEPTH = 3;

/**
 * The approval server: agent API, approver API, approval pages and webhook, around
 * one gate. `close()` ends long-polls and event streams and stops webhook retries;
 * the gate's stores belong to the caller.
 */
export function createApp(options: ServerOptions): { app: Hono; close(): Promise<void> } {
  validateAuthConfig(options.auth);
  const publicOrigin = resolvePublicOrigin(options.publicOrigin);
  const sessions = new Sessions(options.auth.sessionSecret, options.sessionRevocations);
  const closing = new AbortController();
  const bodyLimitBytes = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const tuning = resolveTuning(options.tuning);
  const logger = options.logger ?? pino({ level: 'silent' });
  const metrics = options.metrics === false ? undefined : (options.metrics?.collector ?? new ServerMetrics());
  const services: Services = {
    gate: options.gate,
    authenticator: new Authenticator(options.auth, sessions),
    sessions,
    tuning,
    throttles: createThrottles(tuning),
    publicOrigin,
    bodyLimits: {
      maxBytes: bodyLimitBytes,
      maxDepth: (options.gate.argumentLimits.maxDepth ?? DEFAULT_LIMITS.maxDepth) + ENVELOPE_DEPTH,
    },
    chainStatus: new ChainStatusCache(options.gate.auditLog, () => options.gate.now(), tuning.chainStatusMaxAgeMs),
    closing: closing.signal,
    countAuthFailure: (kind) => metrics?.countAuthFailure(kind),
    passkeys: options.passkeys === undefined ? undefined : passkeyServices(options.passkeys, options.gate, publicOrigin, options.auth.sessionSecret),
  };

  const webhooks = options.webhook === undefined ? [] : Array.isArray(options.webhook) ? options.webhook : [options.webhook as WebhookOptions];
  const linkOrigin = () => publicOrigin ?? options.linkOrigin?.();
  const senders = webhooks.map((webhook) => {
    const health = deliveryHealth({ url: webhook.url, format: webhook.format ?? 'countersign' }, logger, metrics);
    return new WebhookSender({ ...webhook, onReport: health });
  });
  const notifiers = webhooks.map((webhook, i) =>
    notifyByWebhook(options.gate, senders[i]!, {
      origin: linkOrigin,
      format: webhook.format ?? 'countersign',
      argumentSummary: webhook.argumentSummary === true,
      expiryCheckMs: webhook.expiryCheckMs,
    }),
  );

  const unwatch = [logGateEvents(options.gate, logger), ...(metrics === undefined ? [] : [metrics.watch(options.gate)])];

  const app = new Hono<AppEnv>();
  app.use('*', requestLog(logger, metrics?.observeHttp));
  app.use('*', securityHeaders());
  app.use('*', bodyLimit(bodyLimitBytes));

  app.route(
    '/',
    opsRoutes({
      gate: options.gate,
      readinessTimeoutMs: tuning.readinessTimeoutMs,
      metrics: metrics === undefined ? undefined : { collector: metrics, token: options.metrics === false ? undefined : options.metrics?.token },
    }),
  );
  app.route('/api/v1', openApiRoute());
  app.route('/api/v1', proposalRoutes(services));
  app.route('/api/v1', requestRoutes(services));
  app.route('/api/v1', dispatchRoutes(services));
  app.route('/api/v1', authorizeRoutes(services));
  app.route('/api/v1', completeRoutes(services));
  app.route('/api/v1', callRoutes(services));
  app.route('/api/v1', relayedRoutes(services));
  app.route('/api/v1', refusalRoutes(services));
  app.route('/api/v1', providerOutputRoutes(services));
  app.route('/api/v1', toolRoutes(services));
  app.route('/api/v1', approvalRoutes(services));
  app.route('/api/v1', decisionRoutes(services));
  app.route('/api/v1', auditRoutes(services));
  app.route('/api/v1', passkeyApiRoutes(services));

  const mcp = options.mcp;
  if (mcp !== undefined) {
    const problem = mcpPathProblem(mcp.path);
    if (problem !== undefined) throw new ServerConfigError('invalid_mcp_mount', `MCP endpoint path ${problem}`);
    // Authenticated as every agent route (bearer, throttled); then only the gateway's own agent.
    app.all(mcp.path, requireAgent(services), async (c) => {
      if (agentOf(c).id !== mcp.agent) throw new ApiError('forbidden', `this endpoint is for agent ${mcp.agent} only`);
      return mcp.handle(c.req.raw);
    });
  }

  app.route('/', assetRoutes());
  app.route('/', sessionRoutes(services));
  app.route('/', approvalPages(services));
  app.route('/', auditPageRoute(services));
  app.route('/', passkeyRoutes(services));

  app.notFound((c) => {
    // A browser navigating to a page path gets a page; API clients (and the MCP endpoint) the JSON error.
    if (isPagePath(c.req.path, mcp?.path) && (c.req.header('accept') ?? '').includes('text/html')) {
      return c.html(errorPage(new ApiError('not_found', 'no such page')), 404);
    }
    return c.json(new ApiError('not_found', 'no such route').toBody(), 404);
  });
  app.onError((error, c) => {
    const apiError = toApiError(error);
    c.set('errorCode', apiError.code);
    if (apiError.status >= 500) logger.error({ event: 'error', reqId: c.get('requestId'), reason: apiError.code, error: error instanceof Error ? error.name : typeof error });
    if (isPagePath(c.req.path, mcp?.path)) return c.html(errorPage(apiError), apiError.status);
    return c.json(apiError.toBody(), apiError.status);
  });

  return {
    // The per-request variables (AppEnv) are internal: callers only mount or serve the app.
    app: app as unknown as Hono,
    async close() {
      closing.abort();
      for (const stop of unwatch) stop();
      for (const notifier of notifiers) notifier.stop();
      await Promise.all(notifiers.map((notifier) => notifier.settled()));
      await Promise.all(senders.map((sender) => sender.close()));
    },
  };
}

/** Paths outside the API and the MCP endpoint are pages: their errors are HTML. */
function isPagePath(path: string, mcpPath: string | undefined): boolean {
  return !path.startsWith('/api/') && path !== mcpPath;
}
