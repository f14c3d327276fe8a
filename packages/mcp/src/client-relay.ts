import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  LoggingMessageNotificationSchema,
  type RequestId,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { NO_CEILING_MS, type Upstream, type UpstreamRelay } from './upstream.ts';
import { JsonRpcError } from './json-rpc-error.ts';

/** The client a relayed request goes back to: its server side, and the `tools/call` it is part of. */
export interface RelaySite {
  server: Server;
  relatedRequestId?: RequestId | undefined;
}

type Asked = 'sampling' | 'elicitation' | 'elicitation-url' | 'roots';

/**
 * What passes from the upstreams to the gateway's clients and back, beside tool calls:
 * sampling, elicitation and roots requests, log messages and the client's log level,
 * resource subscriptions and their updates, roots changes.
 *
 * The upstreams are connected once, before any client, so the gateway declares upstream
 * every client capability it can relay; a request then goes to the client whose call to
 * that upstream is under way (on that call's stream), else to any connected client that
 * declared the capability, else it is refused as the upstream's own SDK would refuse it
 * for a client without it.
 */
export class ClientRelay implements UpstreamRelay {
  readonly capabilities: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };
  readonly #servers = new Set<Server>();
  readonly #levels = new Map<Server, LoggingLevel>();
  /** Per upstream, the clients with a call to it under way, latest last. */
  readonly #calls = new Map<string, RelaySite[]>();
  /** Resource URI → the clients subscribed to it. */
  readonly #subscribers = new Map<string, Set<Server>>();
  #upstreams: ReadonlyMap<string, Upstream> = new Map();

  /** The connected upstreams (known once all are connected). */
  use(upstreams: ReadonlyMap<string, Upstream>): void {
    this.#upstreams = upstreams;
  }

  attach(client: Client, upstream: string): void {
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => this.#ask(upstream, 'sampling', request, CreateMessageResultSchema, extra.signal));
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      this.#ask(upstream, request.params.mode === 'url' ? 'elicitation-url' : 'elicitation', request, ElicitResultSchema, extra.signal),
    );
    client.setRequestHandler(ListRootsRequestSchema, (request, extra) => this.#ask(upstream, 'roots', request, ListRootsResultSchema, extra.signal));
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => {
      for (const server of this.#servers) {
        if (!isLogged(notification.params.level, this.#levels.get(server))) continue;
        void server.notification(notification).catch(() => undefined);
      }
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      for (const server of this.#subscribers.get(notification.params.uri) ?? []) void server.sendResourceUpdated(notification.params).catch(() => undefined);
    });
  }

  added(server: Server): void {
    this.#servers.add(server);
  }

  /** A client went away: its level and subscriptions go with it. */
  removed(server: Server): void {
    this.#servers.delete(server);
    this.#levels.delete(server);
    for (const [uri, servers] of this.#subscribers) {
      if (servers.delete(server) && servers.size === 0) this.#subscribers.delete(uri);
    }
  }

  /** `fn` is a call to `upstream` made for `site`: what the upstream asks meanwhile goes to that client first. */
  async during<T>(upstream: string, site: RelaySite | undefined, fn: () => Promise<T>): Promise<T> {
    if (site === undefined) return fn();
    const sites = this.#calls.get(upstream) ?? [];
    sites.push(site);
    this.#calls.set(upstream, sites);
    try {
      return await fn();
    } finally {
      sites.splice(sites.indexOf(site), 1);
      if (sites.length === 0) this.#calls.delete(upstream);
    }
  }

  /**
   * A client's `logging/setLevel`: its own messages are filtered at that level, and each
   * upstream with logging is set to the most verbose level any client asked for.
   */
  async setLevel(server: Server, level: LoggingLevel): Promise<void> {
    this.#levels.set(server, level);
    const wanted = [...this.#levels.values()].reduce((a, b) => (severity(b) < severity(a) ? b : a));
    const upstreams = [...this.#upstreams.values()].filter((u) => u.available && u.capabilities.logging !== undefined);
    await Promise.all(upstreams.map((u) => u.client.setLoggingLevel(wanted)));
  }

  /** Subscribes `server` to `uri` at `upstream` (which is subscribed once, for every client). */
  async subscribe(server: Server, upstream: Upstream, uri: string): Promise<void> {
    if (upstream.capabilities.resources?.subscribe !== true) throw new JsonRpcError(ErrorCode.MethodNotFound, `${upstream.name} does not support resource subscriptions`);
    const servers = this.#subscribers.get(uri);
    if (servers === undefined || servers.size === 0) await upstream.client.subscribeResource({ uri });
    this.#subscribers.set(uri, (servers ?? new Set()).add(server));
  }

  async unsubscribe(server: Server, upstream: Upstream, uri: string): Promise<void> {
    const servers = this.#subscribers.get(uri);
    servers?.delete(server);
    if (servers !== undefined && servers.size > 0) return;
    this.#subscribers.delete(uri);
    if (upstream.capabilities.resources?.subscribe === true) await upstream.client.unsubscribeResource({ uri });
  }

  /** A client's roots changed: every upstream is told (it lists them again through `roots/list`). */
  rootsChanged(): void {
    for (const upstream of this.#upstreams.values()) if (upstream.available) void upstream.client.sendRootsListChanged().catch(() => undefined);
  }

  /** An upstream's request, relayed to a client that can answer it; its answer (or error) goes back as it came. */
  async #ask<S extends z.ZodType>(upstream: string, asked: Asked, request: { method: string; params?: Record<string, unknown> | undefined }, schema: S, signal: AbortSignal) {
    const site = this.#site(upstream, asked);
    if (site === undefined) throw new JsonRpcError(ErrorCode.InvalidRequest, `no client connected to the gateway supports ${asked === 'elicitation-url' ? 'URL elicitation' : asked}`);
    // The upstream's progress token names nothing on the client's side.
    const { _meta: meta, ...params } = request.params ?? {};
    const { progressToken: _token, ...rest } = (meta ?? {}) as Record<string, unknown>;
    const relayedParams = Object.keys(rest).length === 0 ? params : { ...params, _meta: rest };
    // No timeout of the gateway's: the upstream cancels its request when it stops waiting.
    return site.server.request({ method: request.method, params: relayedParams } as never, schema, {
      signal,
      timeout: NO_CEILING_MS,
      ...(site.relatedRequestId === undefined ? {} : { relatedRequestId: site.relatedRequestId }),
    });
  }

  #site(upstream: string, asked: Asked): RelaySite | undefined {
    const sites = this.#calls.get(upstream) ?? [];
    for (let i = sites.length - 1; i >= 0; i--) {
      const site = sites[i];
      if (site !== undefined && declares(site.server, asked)) return site;
    }
    for (const server of this.#servers) if (declares(server, asked)) return { server };
    return undefined;
  }
}

function declares(server: Server, asked: Asked): boolean {
  const declared = server.getClientCapabilities();
  if (asked === 'sampling') return declared?.sampling !== undefined;
  if (asked === 'roots') return declared?.roots !== undefined;
  if (asked === 'elicitation-url') return declared?.elicitation?.url !== undefined;
  // A client that declared `elicitation: {}` (2025-06-18) supports form mode.
  return declared?.elicitation !== undefined && (declared.elicitation.form !== undefined || declared.elicitation.url === undefined);
}

function severity(level: LoggingLevel): number {
  return LoggingLevelSchema.options.indexOf(level);
}

/** Whether a message at `level` passes a client's `logging/setLevel` (none set: every message). */
function isLogged(level: LoggingLevel, threshold: LoggingLevel | undefined): boolean {
  return threshold === undefined || severity(level) >= severity(threshold);
}
