import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isInitializeRequest,
  type JSONRPCMessage,
  type JSONRPCRequest,
  JSONRPCMessageSchema,
  type MessageExtraInfo,
  type RequestId,
  type Result,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { plainJsonRpcRequest, RELATED_TASK_META } from './plain-shapes.ts';

/** As the SDK's transport: a POST carries at most this many messages. */
const MAX_BATCH = 100;
/** As the SDK's transport: an SSE stream with nothing to say gets a comment this often (proxies close idle streams). */
const KEEP_ALIVE_MS = 15_000;
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

/** One POST that carried requests: its response, and how it is answered so far. */
interface Exchange {
  res: ServerResponse;
  /** `pending`: nothing written yet (the answer may still be one JSON body); `sse`: an event stream is open; `done`. */
  mode: 'pending' | 'sse' | 'done';
  ids: RequestId[];
  responses: Map<RequestId, JSONRPCMessage>;
  batch: boolean;
  keepAlive?: NodeJS.Timeout | undefined;
}

/** What a direct handler gets with its request (the SDK's `RequestHandlerExtra`, the part the gateway uses). */
export interface DirectRequestExtra {
  /** Aborted when the client cancels the request (`notifications/cancelled`) or the session ends. */
  signal: AbortSignal;
  requestInfo: { headers: IncomingHttpHeaders };
}

/**
 * Answers one request method without the SDK `Server`'s dispatch (see `directHandlers`).
 * Returns the result, or undefined when the request is not its to take after all (it then
 * goes to the SDK `Server` like any other; nothing may have been done with it yet).
 */
export type DirectRequestHandler = (request: JSONRPCRequest, extra: DirectRequestExtra) => Promise<Result> | undefined;

export interface NodeHttpTransportOptions {
  sessionIdGenerator: () => string;
  onsessioninitialized?: ((sessionId: string) => void) | undefined;
}

/**
 * The server side of Streamable HTTP (2025-11-25, session mode) on node:http directly,
 * for the gateway's own front. The SDK's `StreamableHTTPServerTransport` converts every
 * request and response between node:http and web streams and answers every request as an
 * event stream (headers and each event written apart); that was most of the gateway's CPU
 * per call (`npm run bench -- mcp`).
 *
 * The answer to a POST is chosen per request, lazily, as the spec lets the server choose:
 * while the handler only answers, the response is one `application/json` body written
 * once; the first message the server sends about a request before answering it (a
 * progress notification while the call waits for approval, a URL elicitation) turns that
 * response into an event stream, and everything after goes there. So a call that may wait
 * for approval still gets progress and elicitation, and the common call costs one write.
 * No event store (no resumption): the gateway keeps nothing to replay.
 */
export class NodeStreamableHttpTransport implements Transport {
  sessionId?: string | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void) | undefined;

  /**
   * Request methods answered without the SDK `Server` (the gateway's `tools/call`): its
   * dispatch (an AbortController, handler lookups, zod checks of every message's kind and
   * of the request, promise layers) cost more per call than the gate. Only a POST with
   * one request, no task augmentation, after the same session and protocol-version checks;
   * the envelope is checked as strictly as the SDK's `JSONRPCRequestSchema` (plain-shapes.ts),
   * the handler checks its params. Cancellation and the end of the session abort the
   * handler's signal as the SDK's would; the result or error is written as the SDK
   * `Server` would write it.
   */
  readonly directHandlers = new Map<string, DirectRequestHandler>();

  readonly #options: NodeHttpTransportOptions;
  readonly #exchanges = new Map<RequestId, Exchange>();
  readonly #directAborts = new Map<RequestId, AbortController>();
  #standalone: ServerResponse | undefined;
  #standaloneKeepAlive: NodeJS.Timeout | undefined;
  #started = false;
  #initialized = false;
  #closed = false;

  constructor(options: NodeHttpTransportOptions) {
    this.#options = options;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('Transport already started');
    this.#started = true;
  }

  /** Answers one HTTP request of this session. `body` is the parsed JSON body of a POST. */
  async handleRequest(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.#closed) return jsonError(res, 404, -32001, 'Session not found');
    if (req.method === 'POST') return this.#post(req, res, body);
    if (req.method === 'GET') return this.#get(req, res);
    if (req.method === 'DELETE') {
      if (this.#refused(req, res)) return;
      res.writeHead(200).end();
      return this.close();
    }
    res.setHeader('allow', 'GET, POST, DELETE');
    return jsonError(res, 405, -32000, 'Method not allowed.');
  }

  #post(req: IncomingMessage, res: ServerResponse, body: unknown): undefined {
    const accept = req.headers.accept ?? '';
    // The client must take either answer: the server picks per request.
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return jsonError(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
    }
    if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) return jsonError(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    if (!Array.isArray(body) && this.#initialized && this.#direct(req, res, body)) return;
    const raw = Array.isArray(body) ? body : [body];
    if (raw.length > MAX_BATCH) return jsonError(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`);
    const messages: JSONRPCMessage[] = [];
    for (const item of raw) {
      const parsed = JSONRPCMessageSchema.safeParse(item);
      if (!parsed.success) return jsonError(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
      messages.push(parsed.data);
    }
    // Each message was validated once above; what kind it is is read off its shape (the SDK's
    // is* helpers validate the whole message again, results included, on every call).
    if (messages.some((m) => 'method' in m && m.method === 'initialize' && isInitializeRequest(m))) {
      if (this.#initialized) return jsonError(res, 400, -32600, 'Invalid Request: Server already initialized');
      if (messages.length > 1) return jsonError(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      this.sessionId = this.#options.sessionIdGenerator();
      this.#initialized = true;
      this.#options.onsessioninitialized?.(this.sessionId);
    } else if (this.#refused(req, res)) return;
    const extra: MessageExtraInfo = { requestInfo: { headers: req.headers } };
    const requests = messages.filter(isRequest);
    if (requests.length === 0) {
      // Notifications and the client's answers (to an elicitation): accepted, nothing to return.
      res.writeHead(202).end();
      for (const message of messages) {
        this.#cancelDirect(message);
        this.onmessage?.(message, extra);
      }
      return;
    }
    const exchange: Exchange = { res, mode: 'pending', ids: requests.map((r) => r.id), responses: new Map(), batch: Array.isArray(body) };
    for (const id of exchange.ids) this.#exchanges.set(id, exchange);
    // A client that goes away: its requests have nowhere to be answered (the SDK's transport drops them the same way).
    res.once('close', () => this.#finish(exchange));
    for (const message of messages) {
      this.#cancelDirect(message);
      this.onmessage?.(message, extra);
    }
  }

  /** A single request of a direct method: answered here (true), or left to the SDK path (false: nothing written). */
  #direct(req: IncomingMessage, res: ServerResponse, body: unknown): boolean {
    const method = typeof body === 'object' && body !== null ? (body as { method?: unknown }).method : undefined;
    const handler = typeof method === 'string' ? this.directHandlers.get(method) : undefined;
    if (handler === undefined) return false;
    const request = plainJsonRpcRequest(body);
    if (request === undefined) return false; // the SDK path answers it exactly as before (400 Parse error)
    const params = request.params as { task?: unknown; _meta?: Record<string, unknown> } | undefined;
    if (params?.task !== undefined || params?._meta?.[RELATED_TASK_META] !== undefined) return false;
    if (this.#refused(req, res)) return true;
    const abort = new AbortController();
    const answer = handler(request, { signal: abort.signal, requestInfo: { headers: req.headers } });
    if (answer === undefined) return false;
    const exchange: Exchange = { res, mode: 'pending', ids: [request.id], responses: new Map(), batch: false };
    this.#exchanges.set(request.id, exchange);
    this.#directAborts.set(request.id, abort);
    res.once('close', () => this.#finish(exchange));
    const settle = (message: JSONRPCMessage) => {
      if (this.#directAborts.get(request.id) === abort) this.#directAborts.delete(request.id);
      // As the SDK's Protocol: a cancelled request is not answered.
      if (abort.signal.aborted) return;
      this.send(message).catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
    };
    answer.then(
      (result) => settle({ jsonrpc: '2.0', id: request.id, result }),
      (error: unknown) => {
        const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
        settle({
          jsonrpc: '2.0',
          id: request.id,
          error: {
            code: Number.isSafeInteger(code) ? (code as number) : ErrorCode.InternalError,
            message: typeof message === 'string' ? message : 'Internal error',
            ...(data === undefined ? {} : { data }),
          },
        });
      },
    );
    return true;
  }

  /** `notifications/cancelled` for a request answered directly aborts it (the SDK Server does the same for its own). */
  #cancelDirect(message: JSONRPCMessage): void {
    if (!('method' in message) || message.method !== 'notifications/cancelled') return;
    const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
    if (requestId === undefined) return;
    const abort = this.#directAborts.get(requestId);
    if (abort === undefined) return;
    this.#directAborts.delete(requestId);
    abort.abort((message.params as { reason?: unknown }).reason);
  }

  #get(req: IncomingMessage, res: ServerResponse): undefined {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) return jsonError(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream');
    if (this.#refused(req, res)) return;
    if (this.#standalone !== undefined) return jsonError(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session');
    res.writeHead(200, this.#headers(SSE_HEADERS));
    res.flushHeaders();
    this.#standalone = res;
    this.#standaloneKeepAlive = keepAlive(res);
    res.once('close', () => {
      clearInterval(this.#standaloneKeepAlive);
      if (this.#standalone === res) this.#standalone = undefined;
    });
  }

  /** Session and protocol-version checks of every request after `initialize`; true when it was answered with an error. */
  #refused(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.#initialized) {
      jsonError(res, 400, -32000, 'Bad Request: Server not initialized');
      return true;
    }
    const sessionId = req.headers['mcp-session-id'];
    if (sessionId === undefined) {
      jsonError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return true;
    }
    if (sessionId !== this.sessionId) {
      jsonError(res, 404, -32001, 'Session not found');
      return true;
    }
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      jsonError(res, 400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
      return true;
    }
    return false;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    // The server's own messages: a response is the one with a result or an error.
    const isResponse = 'result' in message || 'error' in message;
    const requestId = isResponse ? (message as { id?: RequestId }).id : options?.relatedRequestId;
    if (requestId === undefined) {
      if (isResponse) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request');
      // Unrelated server messages (list_changed) go to the client's GET stream, if it opened one.
      if (this.#standalone !== undefined) this.#standalone.write(sseEvent(message));
      return;
    }
    const exchange = this.#exchanges.get(requestId);
    if (exchange === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`);
    if (!isResponse) {
      // The server speaks before answering (progress, elicitation): from now on this response is an event stream.
      if (exchange.mode === 'pending') this.#openStream(exchange);
      exchange.res.write(sseEvent(message));
      return;
    }
    exchange.responses.set(requestId, message);
    if (exchange.mode === 'sse') exchange.res.write(sseEvent(message));
    if (exchange.responses.size < exchange.ids.length) return;
    if (exchange.mode === 'pending') {
      const answers = exchange.ids.map((id) => exchange.responses.get(id));
      // With its length (writeHead fixes the headers at once: without it the body would go
      // chunked), status line, headers and body leave in one write.
      const text = JSON.stringify(exchange.batch ? answers : answers[0]);
      exchange.res.writeHead(200, { ...this.#jsonHeaders(), 'content-length': Buffer.byteLength(text) });
      exchange.res.end(text);
    } else exchange.res.end();
    this.#finish(exchange);
  }

  #openStream(exchange: Exchange): void {
    exchange.mode = 'sse';
    exchange.res.writeHead(200, this.#headers(SSE_HEADERS));
    exchange.keepAlive = keepAlive(exchange.res);
  }

  #finish(exchange: Exchange): void {
    if (exchange.mode === 'done') return;
    exchange.mode = 'done';
    clearInterval(exchange.keepAlive);
    for (const id of exchange.ids) if (this.#exchanges.get(id) === exchange) this.#exchanges.delete(id);
  }

  /** The headers of a JSON answer, for the session they were made for (node:http does not change the object). */
  #json: { sessionId: string | undefined; headers: OutgoingHttpHeaders } | undefined;

  #jsonHeaders(): OutgoingHttpHeaders {
    if (this.#json?.sessionId !== this.sessionId || this.#json === undefined) this.#json = { sessionId: this.sessionId, headers: this.#headers({ 'content-type': 'application/json' }) };
    return this.#json.headers;
  }

  #headers(base: OutgoingHttpHeaders): OutgoingHttpHeaders {
    return this.sessionId === undefined ? base : { ...base, 'mcp-session-id': this.sessionId };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const abort of this.#directAborts.values()) abort.abort(new Error('the session ended'));
    this.#directAborts.clear();
    for (const exchange of new Set(this.#exchanges.values())) {
      const pending = exchange.mode === 'pending';
      this.#finish(exchange);
      // A request still unanswered when the session ends gets an error, not a hanging or empty response.
      if (pending) jsonError(exchange.res, 404, -32001, 'Session not found');
      else exchange.res.end();
    }
    clearInterval(this.#standaloneKeepAlive);
    this.#standalone?.end();
    this.#standalone = undefined;
    this.onclose?.();
  }
}

function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message && message.id !== undefined;
}

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

function keepAlive(res: ServerResponse): NodeJS.Timeout {
  const timer = setInterval(() => res.write(': keepalive\n\n'), KEEP_ALIVE_MS);
  timer.unref();
  return timer;
}

/** A JSON-RPC error with no id (the request was refused before any message was read), as the SDK's transport answers. */
function jsonError(res: ServerResponse, status: number, code: number, message: string): undefined {
  if (res.headersSent) res.end();
  else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  return undefined;
}
