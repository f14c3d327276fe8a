import { hash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from './gateway.ts';
import { isUtf8JsonContentType } from '@countersign/core/wire';
import { bracketed, frontRefusal, isLoopback, loopbackOrigins, NOT_JSON, NOT_UTF8_JSON, unbracketed } from './front-refusal.ts';
import { NodeStreamableHttpTransport } from './node-http-transport.ts';

export interface HttpFrontOptions {
  gateway: Gateway;
  /**
   * The bearer token every request must carry (`Authorization: Bearer …`). `undefined` only
   * with `noTokenOnLoopback` (local development): then any local process may call the gateway.
   */
  bearerToken: string | undefined;
  /** Serve without a bearer token. Refused unless `host` is a loopback address. */
  noTokenOnLoopback?: boolean | undefined;
  /** Default 127.0.0.1: the gateway is a local endpoint unless the operator says otherwise. An IPv6 address bare or bracketed (`::1`, `[::1]`). */
  host?: string | undefined;
  /** Default 0 (a free port). */
  port?: number | undefined;
  /** Default `/mcp`. */
  path?: string | undefined;
  /**
   * `Host` header values accepted. Default: `127.0.0.1:<port>`, `localhost:<port>`,
   * `[::1]:<port>`, and the bound address itself (`[::1]:<port>` written as a client writes
   * it) unless it is a wildcard (DNS rebinding: an attacker's name never matches).
   */
  allowedHosts?: readonly string[] | undefined;
  /**
   * Browser origins accepted, beside the endpoint's own on a loopback bind
   * (`http://127.0.0.1:<port>`, `localhost`, `[::1]`). A request with no `Origin` (not a
   * browser) is accepted; any other origin is refused.
   */
  allowedOrigins?: readonly string[] | undefined;
  /** Largest request body accepted. Default 4 MiB. */
  maxBodyBytes?: number | undefined;
}

export interface HttpFront {
  readonly url: string;
  close(): Promise<void>;
}

const MIN_TOKEN_LENGTH = 32;

/**
 * Serves the gateway over Streamable HTTP (2025-11-25, one MCP session per client; the
 * transport is node-http-transport.ts). Before the transport sees a request: the Host must
 * be one this endpoint is known by and a browser Origin must be allowed (403: DNS rebinding, cross-site pages), and the
 * bearer token must match (401). Only an `initialize` opens a session.
 */
export async function startHttpFront(options: HttpFrontOptions): Promise<HttpFront> {
  const host = unbracketed(options.host ?? '127.0.0.1');
  if (options.bearerToken === undefined) {
    if (options.noTokenOnLoopback !== true) throw new Error('a bearer token is required');
    if (!isLoopback(host)) throw new Error(`serving without a bearer token is for a loopback bind only, not ${host}`);
  } else if (options.bearerToken.length < MIN_TOKEN_LENGTH) throw new Error(`the bearer token must be at least ${MIN_TOKEN_LENGTH} characters`);
  const path = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const expected = options.bearerToken === undefined ? undefined : digest(options.bearerToken);
  const sessions = new Map<string, NodeStreamableHttpTransport>();
  let allowedHosts: ReadonlySet<string> = new Set(options.allowedHosts ?? []);
  let allowedOrigins: ReadonlySet<string> = new Set(options.allowedOrigins ?? []);

  // The request target exactly as the path (what clients send): no URL parse per request; anything else is parsed.
  const pathIsNormal = new URL(path, 'http://gateway').pathname === path;
  const onPath = (target: string | undefined) => (pathIsNormal && target === path) || new URL(target ?? '/', 'http://gateway').pathname === path;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) plain(res, 500, `internal error: ${error instanceof Error ? error.message : String(error)}`);
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!allowedHosts.has((req.headers.host ?? '').toLowerCase())) return plain(res, 403, 'host not allowed');
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedOrigins.has(origin)) return plain(res, 403, 'origin not allowed');
    if (!onPath(req.url)) return plain(res, 404, 'not found');
    if (expected !== undefined && !authorized(req.headers.authorization, expected)) {
      res.setHeader('www-authenticate', 'Bearer');
      return plain(res, 401, 'a valid bearer token is required');
    }
    // JSON is read as UTF-8: a body declared in another charset is refused before it is parsed.
    if (req.method === 'POST' && !isUtf8JsonContentType(req.headers['content-type'])) return plain(res, 415, NOT_UTF8_JSON);
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const transport = sessions.get(sessionId);
      if (transport === undefined) return plain(res, 404, 'unknown or ended session');
      const body = req.method === 'POST' ? await readJson(req, maxBody) : undefined;
      if (body !== undefined && !body.ok) return plain(res, body.status, body.message);
      return transport.handleRequest(req, res, body?.value);
    }
    if (req.method !== 'POST') return plain(res, 400, 'a session starts with an initialize request');
    const body = await readJson(req, maxBody);
    if (!body.ok) return plain(res, body.status, body.message);
    if (!isInitializeRequest(body.value)) return plain(res, 400, 'a session starts with an initialize request');
    const transport = new NodeStreamableHttpTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await options.gateway.connect(transport);
    await transport.handleRequest(req, res, body.value);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = bracketed(host);
  if (options.allowedHosts === undefined) {
    const bound = isWildcard(host) ? [] : [`${shownHost.toLowerCase()}:${port}`];
    allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, ...bound]);
  }
  allowedOrigins = new Set([...allowedOrigins, ...loopbackOrigins(host, port)]);
  return {
    url: `http://${shownHost}:${port}${path}`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** A bind to every address names no host a client would use. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** One-shot `crypto.hash`: a Hash object per request cost more than the rest of the bearer check. */
function digest(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/** Constant-time: both sides are hashed to the same length first. */
function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer ([^\s]+)$/i.exec(header ?? '');
  return match?.[1] !== undefined && timingSafeEqual(digest(match[1]), expected);
}

type BodyRead = { ok: true; value: unknown } | { ok: false; status: number; message: string };

/** Events, not `for await`: the async iterator costs more than the rest of reading a small body. */
function readJson(req: IncomingMessage, maxBytes: number): Promise<BodyRead> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      req.off('data', onData);
      resolve({ ok: false, status: 413, message: `request body too large (at most ${maxBytes} bytes)` });
      // The 413 is answered while the rest is read and dropped (closing now would reset the connection
      // before the client reads the answer); an endless body is cut off after a grace period.
      req.resume();
      setTimeout(() => req.destroy(), BODY_GRACE_MS).unref();
    };
    req.on('data', onData);
    req.once('error', reject);
    req.once('end', () => {
      if (size > maxBytes) return;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ ok: false, status: 400, message: NOT_JSON });
      }
    });
  });
}

const BODY_GRACE_MS = 2_000;

/** A refusal before MCP sees the request (front-refusal.ts); a too-large body also closes the connection. */
function plain(res: ServerResponse, status: number, message: string): void {
  const refusal = frontRefusal(status, message);
  res.writeHead(status, { ...refusal.headers, ...(status === 413 ? { connection: 'close' } : {}) });
  res.end(refusal.body);
}
