import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { createParser } from 'eventsource-parser';
import { eventSizeGuard, MessageTooLargeError, readBounded } from './message-size.ts';

/** Kept-alive connections to the upstreams (the SDK path's are in upstream-fetch.ts). */
const AGENTS: Record<string, HttpAgent> = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
/** As upstream-fetch.ts: a connection silent this long is given up. */
const IDLE_TIMEOUT_MS = 300_000;

/** What a lean `tools/call` came back with: the raw JSON-RPC `result`, or `redirected` (not run upstream: the SDK path follows redirects). */
export type LeanAnswer = { ok: true; result: unknown } | { ok: false; redirected: true };

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  /** Ends the call's HTTP exchange (the upstream connection is closing). */
  abort(): void;
}

/**
 * `tools/call` to a Streamable HTTP upstream without the SDK `Client`'s request path.
 *
 * Per call the SDK client built a Headers object and a fetch init, went through its
 * redirect wrapper, validated the answer with zod twice (the JSON-RPC envelope, then the
 * whole `CallToolResult`), kept a timeout, a progress handler and abort listeners: more
 * CPU than the gate's own work (`npm run bench -- mcp`). Here the request is one
 * `node:http` POST on a kept-alive connection, in the session the SDK client opened
 * (its `mcp-session-id` and negotiated `mcp-protocol-version`, the configured headers),
 * with a request id the SDK client never uses (its ids are numbers). The answer is read
 * as JSON or as an event stream; only the response to this id is taken, and the result
 * is handed back as it came (the gateway digests and relays it; the client validates it).
 *
 * Everything else the upstream says stays the SDK client's business: other messages on
 * the call's event stream (progress, logging, a ping) go to the SDK transport's
 * `onmessage` as they would have; a stream that ends after a priming event but before the
 * answer is resumed by the SDK transport (`send` with the resumption token, which replays
 * under this call's id); a redirect is reported so the caller repeats the call through the
 * SDK client, which follows redirects within the origin (a redirected POST did not run).
 * The SDK's `notifications/cancelled` is kept, sent when the client cancels the call.
 */
export class LeanToolCaller {
  readonly #url: URL;
  /** The request options but headers, worked out once (http.request would redo it from the URL per call). */
  readonly #options: ReturnType<typeof urlToHttpOptions> & { method: 'POST'; agent: HttpAgent; timeout: number };
  readonly #headers: Record<string, string>;
  readonly #transport: StreamableHTTPClientTransport;
  readonly #client: Client;
  readonly #pending = new Map<string, Pending>();
  #next = 0;
  #closed = false;

  readonly #limit: { upstream: string; maxMessageBytes: number };

  constructor(url: URL, headers: Record<string, string>, transport: StreamableHTTPClientTransport, client: Client, limit: { upstream: string; maxMessageBytes: number }) {
    this.#url = url;
    this.#limit = limit;
    const agent = AGENTS[url.protocol];
    if (agent === undefined) throw new Error(`no lean path for ${url.protocol}`);
    this.#options = { ...urlToHttpOptions(url), method: 'POST', agent, timeout: IDLE_TIMEOUT_MS };
    // Lower case, as the SDK's Headers would send them; content-type and accept are the transport's own.
    this.#headers = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    this.#transport = transport;
    this.#client = client;
    // Responses to this caller's ids that reach the SDK transport (a resumed stream) come here, not to the client.
    const sdkOnMessage = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      const id = (message as { id?: unknown }).id;
      const pending = typeof id === 'string' ? this.#pending.get(id) : undefined;
      if (pending !== undefined && !('method' in message)) return settle(pending, message);
      sdkOnMessage?.(message);
    };
  }

  /**
   * Calls `tool` with `argsJson` (JSON text of the arguments object, sent as it is). No
   * timeout of its own: the call ends when the upstream answers or `signal` (the client's
   * cancellation) aborts it, and then the upstream is told, as the SDK client would.
   */
  call(tool: string, argsJson: string, signal?: AbortSignal): Promise<LeanAnswer> {
    if (this.#closed) return Promise.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
    if (signal?.aborted === true) return Promise.reject(abortError(signal));
    const id = `countersign-${++this.#next}`;
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":${JSON.stringify(tool)},"arguments":${argsJson}}}`;
    return new Promise<LeanAnswer>((resolve, reject) => {
      const onAbort = () => {
        fail(abortError(signal));
        request.destroy();
        void this.#client.notification({ method: 'notifications/cancelled', params: { requestId: id, reason: 'the client cancelled the call' } }).catch(() => undefined);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        this.#pending.delete(id);
      };
      const fail = (error: Error) => {
        done();
        reject(error);
      };
      this.#pending.set(id, {
        resolve: (result) => {
          done();
          resolve({ ok: true, result });
        },
        reject: fail,
        abort: () => request.destroy(),
      });
      const send = this.#url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send({ ...this.#options, headers: this.#requestHeaders() }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          done();
          return resolve({ ok: false, redirected: true });
        }
        const tooLarge = () => fail(new MessageTooLargeError(this.#limit.upstream, this.#limit.maxMessageBytes, false));
        const readAll = (onText: (text: string) => void) => readBounded(res, this.#limit.maxMessageBytes, onText, fail, tooLarge);
        if (status < 200 || status >= 300) return readAll((text) => fail(new StreamableHTTPError(status, `Error POSTing to endpoint: ${text}`)));
        const type = res.headers['content-type'] ?? '';
        if (/^application\/json\s*(;|$)/i.test(type)) return readAll((text) => this.#onJson(id, text));
        if (/^text\/event-stream\s*(;|$)/i.test(type)) return this.#onStream(id, body, res);
        res.resume();
        fail(new StreamableHTTPError(-1, `Unexpected content type: ${type}`));
      });
      request.once('error', fail);
      request.on('timeout', () => request.destroy(new Error(`the upstream sent nothing for ${IDLE_TIMEOUT_MS / 1000} s`)));
      request.end(body);
    });
  }

  /** Every call under way fails (the upstream connection is closing). */
  close(): void {
    this.#closed = true;
    for (const pending of [...this.#pending.values()]) {
      pending.reject(new McpError(ErrorCode.ConnectionClosed, 'Connection closed'));
      pending.abort();
    }
  }

  /** The headers of the last call, reused while the session and protocol version stay the same (node:http does not change them). */
  #lastHeaders: { session: string | undefined; version: string | undefined; headers: Record<string, string> } | undefined;

  #requestHeaders(): Record<string, string> {
    const session = this.#transport.sessionId;
    const version = this.#transport.protocolVersion;
    const last = this.#lastHeaders;
    if (last !== undefined && last.session === session && last.version === version) return last.headers;
    const headers = {
      ...(session === undefined ? {} : { 'mcp-session-id': session }),
      ...(version === undefined ? {} : { 'mcp-protocol-version': version }),
      ...this.#headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    this.#lastHeaders = { session, version, headers };
    return headers;
  }

  /** A JSON answer: this call's response (alone or in a batch); anything else in it goes to the SDK client. */
  #onJson(id: string, text: string): void {
    const pending = this.#pending.get(id);
    if (pending === undefined) return;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      pending.reject(new StreamableHTTPError(-1, 'the upstream answered invalid JSON'));
      return;
    }
    for (const message of Array.isArray(data) ? data : [data]) this.#deliver(id, message);
    this.#pending.get(id)?.reject(new StreamableHTTPError(-1, 'the upstream answered without a response to the call'));
  }

  /** One message of this call's answer: its response settles the call, the rest is the SDK client's. */
  #deliver(id: string, message: unknown): void {
    if (typeof message === 'object' && message !== null && (message as { id?: unknown }).id === id && !('method' in message)) {
      const pending = this.#pending.get(id);
      if (pending !== undefined) settle(pending, message as JSONRPCMessage);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (parsed.success) this.#transport.onmessage?.(parsed.data);
    else this.#transport.onerror?.(new Error(`the upstream sent an invalid JSON-RPC message: ${parsed.error.message}`));
  }

  /** An event-stream answer: read until this call's response; a stream that ends first is resumed by the SDK transport when it can be. */
  #onStream(id: string, body: string, res: IncomingMessage): void {
    let lastEventId: string | undefined;
    const parser = createParser({
      onEvent: (event) => {
        if (event.id !== undefined) lastEventId = event.id;
        if (event.data === '' || (event.event !== undefined && event.event !== 'message')) return;
        try {
          this.#deliver(id, JSON.parse(event.data));
        } catch (error) {
          this.#transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      },
    });
    const decoder = new TextDecoder();
    const overgrown = eventSizeGuard(this.#limit.maxMessageBytes);
    res.on('data', (chunk: Buffer) => {
      if (!overgrown(chunk)) return parser.feed(decoder.decode(chunk, { stream: true }));
      // Not read on: the call fails typed, and what the stream still holds is dropped with the connection.
      this.#pending.get(id)?.reject(new MessageTooLargeError(this.#limit.upstream, this.#limit.maxMessageBytes, false));
      res.destroy();
    });
    res.once('end', () => {
      const pending = this.#pending.get(id);
      if (pending === undefined) return;
      if (lastEventId === undefined) return pending.reject(new StreamableHTTPError(-1, 'the upstream closed the stream without answering the call'));
      // As the SDK's client: reconnect with Last-Event-ID; the replayed answer carries this call's id and comes back through onmessage.
      this.#transport.send(JSON.parse(body) as JSONRPCMessage, { resumptionToken: lastEventId }).catch((error: unknown) => pending.reject(error instanceof Error ? error : new Error(String(error))));
    });
    res.once('error', (error) => this.#pending.get(id)?.reject(error));
  }
}

/** A JSON-RPC response settles its call: the result as it came, or the upstream's error as the SDK client raises it. */
function settle(pending: Pending, message: JSONRPCMessage): void {
  const { result, error } = message as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } };
  if (error !== undefined) {
    const code = typeof error?.code === 'number' ? error.code : ErrorCode.InternalError;
    pending.reject(new McpError(code, typeof error?.message === 'string' ? error.message : 'upstream error', error?.data));
  } else if (result === undefined) pending.reject(new StreamableHTTPError(-1, 'the upstream answered the call with neither a result nor an error'));
  else pending.resolve(result);
}

/** The error a cancelled call rejects with (the SDK client's wording for the same case). */
function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new McpError(ErrorCode.RequestTimeout, `Request cancelled${reason === undefined ? '' : `: ${String(reason)}`}`);
}

