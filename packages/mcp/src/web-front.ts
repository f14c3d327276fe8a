import { randomUUID } from 'node:crypto';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { isUtf8JsonContentType } from '@countersign/core/wire';
import { frontRefusal, isLoopback, loopbackOrigins, NOT_JSON, NOT_UTF8_JSON, unbracketed } from './front-refusal.ts';
import type { Gateway } from './gateway.ts';
import { type ModernFrontOptions, modernGatewayFront } from './modern-front.ts';
import { type WebSession, webPost } from './web-direct-call.ts';

export interface GatewayWebHandlerOptions {
  /**
   * Host names accepted in the request's `Host` (its URL) beside loopback ones, which are
   * always accepted: any other is refused 403 (DNS rebinding: a page on evil.example whose
   * name resolves to this machine). `countersign serve` passes its public URL's and bind address's.
   * An IPv6 address bare or bracketed (`2001:db8::5`, `[2001:db8::5]`).
   */
  allowedHosts?: readonly string[] | undefined;
  /** Browser origins accepted. A request with no `Origin` (not a browser) is accepted; any other origin is refused. */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * Where the server listens: on a loopback bind, the endpoint's own origins
   * (`http://127.0.0.1:<port>`, `localhost`, `[::1]`) are accepted too, as on `countersign mcp --http`.
   */
  bind?: { host: string; port: number } | undefined;
  /** Open MCP sessions at most; an `initialize` beyond that is refused (503) until one ends. Default 256. */
  maxSessions?: number | undefined;
  /** The 2026-07-28 front (see modern-front.ts); its request-state key. Default: serve both revisions, a random key. */
  modern?: false | ModernFrontOptions | undefined;
}

/** The gateway's Streamable HTTP endpoint as a fetch-style handler, for a server that already authenticated the request. */
export interface GatewayWebHandler {
  handle(request: Request): Promise<Response>;
  /** Ends every open session. */
  close(): Promise<void>;
}

/**
 * Serves the gateway over Streamable HTTP inside another HTTP server: 2025-era clients
 * through the 1.x SDK's web-standard transport (one MCP session per client), 2026-07-28
 * clients through the 2.x front (stateless, `input_required` approvals; modern-front.ts).
 * `countersign serve` mounts it at `/mcp` behind its own agent bearer authentication
 * and body limit. Here: the `Host` must be loopback or allowed and a browser `Origin` must be allowed (403), only an `initialize` opens a session, and a
 * request naming an unknown or ended session is a 404 (the spec's "start a new session").
 */
export function gatewayWebHandler(gateway: Gateway, options: GatewayWebHandlerOptions = {}): GatewayWebHandler {
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; session?: WebSession }>();
  const bind = options.bind;
  const allowedOrigins = new Set([...(options.allowedOrigins ?? []), ...(bind === undefined ? [] : loopbackOrigins(bind.host, bind.port))]);
  // One spelling for hosts: lower case, IPv6 without brackets (the URL's hostname has them).
  const allowedHosts = new Set((options.allowedHosts ?? []).map((h) => unbracketed(h.toLowerCase())));
  const maxSessions = options.maxSessions ?? 256;
  const modern = options.modern === false ? undefined : modernGatewayFront(gateway, options.modern ?? {});

  async function handle(request: Request): Promise<Response> {
    const { hostname } = new URL(request.url);
    if (!isLoopback(hostname) && !allowedHosts.has(unbracketed(hostname))) return plain(403, 'host not allowed');
    const origin = request.headers.get('origin');
    if (origin !== null && !allowedOrigins.has(origin)) return plain(403, 'origin not allowed');
    // JSON is read as UTF-8: a body declared in another charset is refused before it is parsed.
    if (request.method === 'POST' && !isUtf8JsonContentType(request.headers.get('content-type') ?? undefined)) return plain(415, NOT_UTF8_JSON);
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId !== null) {
      const known = sessions.get(sessionId);
      if (known === undefined) return plain(404, 'unknown or ended session');
      // tools/call that can only be answered with its result: answered without the SDK transport (web-direct-call.ts).
      if (request.method !== 'POST' || known.session === undefined) return known.transport.handleRequest(request);
      const post = await webPost(gateway, known.session, request);
      if (post.answered !== undefined) return post.answered;
      return known.transport.handleRequest(post.request, post.parsedBody === undefined ? undefined : { parsedBody: post.parsedBody });
    }
    if (request.method !== 'POST') return plain(400, 'a session starts with an initialize request');
    const original = request.clone();
    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch {
      return plain(400, NOT_JSON);
    }
    // One endpoint, both revisions: 2026-07-28 requests (per-request envelope, no session) go to the 2.x front.
    if (modern !== undefined && !(await isLegacyRequest(original.clone(), body))) return modern.fetch(original);
    if (!isInitializeRequest(body)) return plain(400, 'a session starts with an initialize request');
    if (sessions.size >= maxSessions) return plain(503, 'too many open MCP sessions');
    const entry: { transport: WebStandardStreamableHTTPServerTransport; session?: WebSession } = {
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, entry);
          entry.session = { id, server, calls: new Map() };
        },
      }),
    };
    const { transport } = entry;
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      for (const call of entry.session?.calls.values() ?? []) call.abort(new Error('the session ended'));
    };
    const server = await gateway.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  return {
    handle,
    async close() {
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      sessions.clear();
    },
  };
}

/** A refusal before MCP sees the request: the same JSON-RPC error shape as the standalone front (front-refusal.ts). */
function plain(status: number, message: string): Response {
  const refusal = frontRefusal(status, message);
  return new Response(refusal.body, { status: refusal.status, headers: refusal.headers });
}
