import type { Server } from 'node:http';
import type { Clock } from '@countersign/core';
import type { AuditLog } from '@countersign/core/audit';
import { type DefinitionReviewRule, Gate, type SharedTools, type ToolRegistry } from '@countersign/core/gate';
import type { LedgerStore } from '@countersign/core/ledger';
import type { PolicyEngine } from '@countersign/core/policy';
import type { SessionRevocationStore } from '@countersign/core/session';
import type { Keyring } from '@countersign/core/token';
import type { DefinitionStore } from '@countersign/core/catalog';
import type { GateEvents } from '@countersign/core/events';
import type { PasskeyStore } from '@countersign/core/passkey';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from '../app/create-app.ts';
import type { AuthConfig, McpMount, ServerTuning, WebhookOptions } from '../app/options.ts';
import { closeServer, listen, localUrl } from './listen.ts';
import type { Logger } from 'pino';
import { ServerMetrics } from '../ops/metrics.ts';
import { timedLedger } from '../ops/timed-ledger.ts';
import { timeOrderedId } from './time-ordered-id.ts';

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface StartServerOptions {
  ledger: LedgerStore;
  audit: AuditLog;
  /** Logouts, kept in the same store as the ledger (see ServerOptions.sessionRevocations). */
  sessions?: SessionRevocationStore | undefined;
  /** Tool definitions, pins and agent registrations: the store's, so every replica shares them (required, like the ledger). */
  definitions: DefinitionStore;
  policy: PolicyEngine;
  /** Who re-approves a new or changed tool definition (the policy's `definitionReview`). Default: the gate's (role admin). */
  definitionReview?: DefinitionReviewRule | undefined;
  /** Registered tools other agents may use too (the policy's `sharedTools`). Default: none, each is its registering agent's. */
  sharedTools?: SharedTools | undefined;
  /** Trust the first definition seen of a tool nobody pinned yet. Default false (weakens invariant 9 when on). */
  trustOnFirstUse?: boolean | undefined;
  keyring: Keyring;
  tools: ToolRegistry;
  auth: AuthConfig;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Origin browsers use when it is not the listening address (behind a proxy). */
  publicOrigin?: string | undefined;
  /**
   * Approvers' passkeys (the store's `passkeys`): enables passkey registration and
   * passkey-signed decisions, scoped to `publicOrigin`, else to the listening address.
   */
  passkeys?: PasskeyStore | undefined;
  webhook?: WebhookOptions | readonly WebhookOptions[] | undefined;
  tuning?: ServerTuning | undefined;
  clock?: Clock | undefined;
  /** The gate's event bus; one that reaches the other replicas when several share the store. Default: in-process. */
  events?: GateEvents | undefined;
  /**
   * How long a client may take to send a whole request (headers and body). Default 30000 ms:
   * an upload that sends its headers and stalls is answered 408 and cut, not held for Node's
   * 300 s. Long-polls and event streams are responses, which this does not limit.
   */
  requestTimeoutMs?: number | undefined;
  /** How long open connections may take to finish on close. Default 3000 ms. */
  shutdownGraceMs?: number | undefined;
  /**
   * An MCP endpoint on the same port, made once the gate exists (the gateway shares it):
   * `countersign serve --mcp`. Closed with the server.
   */
  mcp?: ((gate: Gate) => Promise<McpMount & { close(): Promise<void> }>) | undefined;
  /** Structured logs (pino); default none. */
  logger?: Logger | undefined;
  /** Bearer token a Prometheus scrape of /metrics must send; default: /metrics is open. `false`: no /metrics. */
  metricsToken?: string | false | undefined;
}

export interface RunningServer {
  /** Where clients on this machine reach the service (the public origin when one is set). */
  readonly url: string;
  readonly port: number;
  readonly gate: Gate;
  /** Ends waiting clients, stops listening and waits for requests in flight. Does not close the store. */
  close(): Promise<void>;
}

/**
 * Wires a gate over the given store, policy, keys and tools into the HTTP app and
 * listens. The caller owns the store: the same store may outlive several servers.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  // Store latency is measured around the ledger the gate uses, whatever the store.
  const metrics = options.metricsToken === false ? undefined : new ServerMetrics({ processMetrics: true });
  const gate = new Gate({
    ledger: metrics === undefined ? options.ledger : timedLedger(options.ledger, metrics.observeStore),
    audit: options.audit,
    policy: options.policy,
    keyring: options.keyring,
    tools: options.tools,
    clock: options.clock,
    definitions: options.definitions,
    definitionReview: options.definitionReview,
    sharedTools: options.sharedTools,
    trustOnFirstUse: options.trustOnFirstUse,
    events: options.events,
    newId: timeOrderedId,
  });
  const mcp = await options.mcp?.(gate);
  // The listening address is known only after listen(): passkeys' RP origin and webhook
  // links (when no public origin is set) read it when needed.
  let listenOrigin: string | undefined;
  let created: ReturnType<typeof createApp>;
  try {
    created = createApp({
      gate,
      auth: options.auth,
      ...(mcp === undefined ? {} : { mcp }),
    ...(options.sessions === undefined ? {} : { sessionRevocations: options.sessions }),
    ...(options.publicOrigin === undefined ? {} : { publicOrigin: options.publicOrigin }),
    ...(options.webhook === undefined ? {} : { webhook: options.webhook }),
    ...(options.tuning === undefined ? {} : { tuning: options.tuning }),
      ...(options.passkeys === undefined ? {} : { passkeys: { store: options.passkeys, origin: () => listenOrigin } }),
      ...(options.logger === undefined ? {} : { logger: options.logger }),
      linkOrigin: () => listenOrigin,
      metrics: metrics === undefined ? false : { collector: metrics, token: options.metricsToken === false ? undefined : options.metricsToken },
    });
  } catch (error) {
    await mcp?.close();
    throw error;
  }
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const server = createAdaptorServer({
    fetch: created.app.fetch,
    hostname: options.host,
    // Node checks request timeouts at this interval: a short timeout needs a shorter check.
    serverOptions: { requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(requestTimeout / 4))) },
  }) as Server;
  let port: number;
  try {
    port = await listen(server, options.port, options.host);
  } catch (error) {
    await created.close();
    await mcp?.close();
    throw error;
  }
  listenOrigin = localUrl(options.host, port);
  let closing: Promise<void> | undefined;
  return {
    url: options.publicOrigin ?? localUrl(options.host, port),
    port,
    gate,
    close: () => {
      closing ??= (async () => {
        // Long-polls and event streams end first, so the server can close without waiting them out.
        await created.close();
        // MCP sessions end before the server waits for open connections (their streams would hold it).
        await mcp?.close();
        await closeServer(server, options.shutdownGraceMs ?? 3000);
      })();
      return closing;
    },
  };
}
