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
 * The upstreams are shared by every client of the gateway (one stdio process or HTTP
 * session per upstream, not one per client session), so what the gateway declares to them
 * is the intersection of what its initialized clients declared: nothing before the first
 * client, exactly the client's own on the stdio front, on the HTTP fronts only what every
 * open session can answer. An upstream then never asks for what a client sharing it cannot
 * give; `onchange` tells the gateway when the intersection may have moved (a client
 * initialized or went away), and it reconnects the upstreams declared otherwise
 * (supervised-upstream.ts). A request goes to the client whose call to that upstream is
 * under way (on that call's stream), else, outside any call, to a connected client that
 * declared the capability; a request that client cannot answer is refused with
 * "Method not found" (-32601), as a client's own SDK refuses it, never left waiting.
 */
export class ClientRelay implements UpstreamRelay {
  /** Called when a client initialized or went away: what `capabilities` answers may differ. */
  onchange: (() => void) | undefined;
  readonly #servers = new Set<Server>();
  readonly #levels = new Map<Server, LoggingLevel>();
  /** Per upstream, the clients with a call to it under way, latest last. */
  readonly #calls = new Map<string, RelaySite[]>();
  /** Resource URI → the upstream it is subscribed at and the clients subscribed to it. */
  readonly #subscribers = new Map<string, { upstream: string; servers: Set<Server> }>();
  #upstreams: ReadonlyMap<string, Upstream> = new Map();

  /** The connected upstreams (known once all are connected). */
  use(upstreams: ReadonlyMap<string, Upstream>): void {
    this.#upstreams = upstreams;
  }

  /**
   * Installs the relay on an upstream's client that will declare `declared`. A request for a
   * capability not declared has no handler: the SDK client answers it "Method not found"
   * (its registration refuses such a handler); one declared but that the asking call's client
   * lacks (a client initialized since) is refused by #ask the same way.
   */
  attach(client: Client, upstream: string, declared: ClientCapabilities): void {
    if (declared.sampling !== undefined) {
      client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => this.#ask(upstream, 'sampling', request, CreateMessageResultSchema, extra.signal));
    }
    if (declared.elicitation !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
        this.#ask(upstream, request.params.mode === 'url' ? 'elicitation-url' : 'elicitation', request, ElicitResultSchema, extra.signal),
      );
    }
    if (declared.roots !== undefined) {
      client.setRequestHandler(ListRootsRequestSchema, (request, extra) => this.#ask(upstream, 'roots', request, ListRootsResultSchema, extra.signal));
    }
    client.setNotificationHandler(LoggingMessageNotificationSchema, async (notification) => {
      for (const server of this.#servers) {
        if (!isLogged(notification.params.level, this.#levels.get(server))) continue;
        void server.notification(notification).catch(() => undefined);
      }
    });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      for (const server of this.#subscribers.get(notification.params.uri)?.servers ?? []) void server.sendResourceUpdated(notification.params).catch(() => undefined);
    });
  }

  /** The intersection of what the initialized clients declared, as this gateway can relay it ({} with none). */
  get capabilities(): ClientCapabilities {
    return this.capabilitiesWith(undefined);
  }

  /**
   * The intersection with one more client that is initializing (`pending`, its `initialize`
   * read but not yet answered): what the upstreams are told when that client starts them,
   * so they need not be connected again once it is initialized.
   */
  capabilitiesWith(pending: ClientCapabilities | undefined): ClientCapabilities {
    const clients = [...this.#servers].map((server) => server.getClientCapabilities()).filter((declared) => declared !== undefined);
    if (pending !== undefined) clients.push(pending);
    if (clients.length === 0) return {};
    const all = (asked: Asked) => clients.every((declared) => declares(declared, asked));
    const form = all('elicitation');
    const url = all('elicitation-url');
    return {
      ...(all('sampling') ? { sampling: {} } : {}),
      ...(form || url ? { elicitation: { ...(form ? { form: {} } : {}), ...(url ? { url: {} } : {}) } } : {}),
      ...(all('roots') ? { roots: { listChanged: true } } : {}),
    };
  }

  added(server: Server): void {
    this.#servers.add(server);
  }

  /** A client finished its initialize: its capabilities now count. */
  initialized(): void {
    this.onchange?.();
  }

  /** A client went away: its level and subscriptions go with it. */
  removed(server: Server): void {
    this.#servers.delete(server);
    this.#levels.delete(server);
    for (const [uri, { servers }] of this.#subscribers) {
      if (servers.delete(server) && servers.size === 0) this.#subscribers.delete(uri);
    }
    // The last client leaving changes nothing: the upstreams keep what they were told until the next one initializes.
    if (this.#servers.size > 0) this.onchange?.();
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
    const upstreams = [...this.#upstreams.values()].filter((u) => u.available && u.capabilities.logging !== undefined);
    await Promise.all(upstreams.map((u) => this.#applyLevel(u)));
  }

  /**
   * An upstream (re)connected: a new process or session knows nothing of what the clients
   * set on the previous one, so the log level and the resource subscriptions are set again
   * before it serves (else a restart silently ends a client's updates and floods or
   * silences its log).
   */
  async restore(upstream: Upstream): Promise<void> {
    const uris = [...this.#subscribers].filter(([, s]) => s.upstream === upstream.name).map(([uri]) => uri);
    const subscribe = upstream.capabilities.resources?.subscribe === true ? uris : [];
    await Promise.all([this.#applyLevel(upstream), ...subscribe.map((uri) => upstream.client.subscribeResource({ uri }))]);
  }

  /** The most verbose level any client asked for, on `upstream` (nothing when no client asked or it has no logging). */
  async #applyLevel(upstream: Upstream): Promise<void> {
    if (this.#levels.size === 0 || upstream.capabilities.logging === undefined) return;
    const wanted = [...this.#levels.values()].reduce((a, b) => (severity(b) < severity(a) ? b : a));
    await upstream.client.setLoggingLevel(wanted);
  }

  /** Subscribes `server` to `uri` at `upstream` (which is subscribed once, for every client). */
  async subscribe(server: Server, upstream: Upstream, uri: string): Promise<void> {
    if (upstream.capabilities.resources?.subscribe !== true) throw new JsonRpcError(ErrorCode.MethodNotFound, `${upstream.name} does not support resource subscriptions`);
    const subscribed = this.#subscribers.get(uri);
    if (subscribed === undefined || subscribed.servers.size === 0) await upstream.client.subscribeResource({ uri });
    this.#subscribers.set(uri, { upstream: upstream.name, servers: (subscribed?.servers ?? new Set()).add(server) });
  }

  async unsubscribe(server: Server, upstream: Upstream, uri: string): Promise<void> {
    const servers = this.#subscribers.get(uri)?.servers;
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
    if (site === undefined) throw new JsonRpcError(ErrorCode.MethodNotFound, `the client does not support ${asked === 'elicitation-url' ? 'URL elicitation' : asked}`);
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

  /**
   * During a call to `upstream`, only a client with such a call under way may be asked (the
   * latest that can answer): the request is part of that work, and another session's client
   * must not see it. Outside any call, a connected client that declared the capability.
   */
  #site(upstream: string, asked: Asked): RelaySite | undefined {
    const sites = this.#calls.get(upstream) ?? [];
    for (let i = sites.length - 1; i >= 0; i--) {
      const site = sites[i];
      if (site !== undefined && declares(site.server.getClientCapabilities(), asked)) return site;
    }
    if (sites.length > 0) return undefined;
    for (const server of this.#servers) if (declares(server.getClientCapabilities(), asked)) return { server };
    return undefined;
  }
}

function declares(declared: ClientCapabilities | undefined, asked: Asked): boolean {
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
