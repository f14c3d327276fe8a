import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { createParser } from 'eventsource-parser';
import { eventSizeGuard, MessageTooLargeError, readBounded } from './message-size.ts';

/** Kept-alive connections to the upstreams, shared by every transport of this process. */
const AGENTS: Record<string, HttpAgent> = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
const NO_BODY = new Set([101, 204, 205, 304]);
/** As the global fetch (undici's headers and body timeouts): a connection silent this long is given up. */
const IDLE_TIMEOUT_MS = 300_000;
/** An event stream not answered within this many bytes is handed on as a stream (nothing more is buffered here). */
const MAX_COLLAPSE_BYTES = 1024 * 1024;

/**
 * The `fetch` of the gateway's Streamable HTTP upstream transports.
 *
 * Every message to an upstream is a POST with a JSON body; those go out on node:http
 * (kept-alive connections, one write per request) instead of the global fetch, whose
 * Request/Headers/web-stream machinery cost the gateway more CPU per call than the
 * gate did (`npm run bench -- mcp`). The SDK asks for `redirect: 'manual'` and follows
 * redirects itself within the origin; so does this one (a 3xx is returned as it came).
 * A JSON answer is read whole; an event stream is handed on as it arrives.
 *
 * The SDK passes every request the transport's one long-lived abort signal. A listener is
 * hung on it per request and taken off when that response ended (for an event stream:
 * when the stream closed), so the signal never accumulates listeners, and closing the
 * transport still aborts a request or stream under way. Anything else (the standalone GET
 * stream, the session DELETE, another redirect mode) goes to the global fetch as it is.
 */
export const upstreamFetch: FetchLike = (url, init) => boundedUpstreamFetch('upstream', Number.POSITIVE_INFINITY)(url, init);

/**
 * `upstreamFetch` that reads no message larger than `maxMessageBytes` (message-size.ts): a
 * JSON answer that outgrows it, or one event of an event stream, is not read on and the
 * request fails with `MessageTooLargeError`. (The standalone GET stream, through the global
 * fetch, is the SDK transport's, unbounded.)
 */
export function boundedUpstreamFetch(upstream: string, maxMessageBytes: number): FetchLike {
  const limit = { upstream, maxMessageBytes };
  return (url, init) => {
    const target = typeof url === 'string' ? new URL(url) : url;
    const agent = AGENTS[target.protocol];
    if (init === undefined || init.method !== 'POST' || init.redirect !== 'manual' || typeof init.body !== 'string' || agent === undefined) return fetch(url, init);
    return post(target, agent, init, limit);
  };
}

interface Limit {
  upstream: string;
  maxMessageBytes: number;
}

function post(target: URL, agent: HttpAgent, init: RequestInit, limit: Limit): Promise<Response> {
  return new Promise((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = init.headers instanceof Headers ? Object.fromEntries(init.headers) : Object.fromEntries(new Headers(init.headers));
    const request = send(target, { method: 'POST', headers, agent, timeout: IDLE_TIMEOUT_MS }, (res) => {
      const status = res.statusCode ?? 0;
      const options = { status, statusText: res.statusMessage ?? '', headers: headersOf(res) };
      if (NO_BODY.has(status)) {
        res.resume();
        res.once('end', release);
        return resolve(wholeResponse(options, undefined));
      }
      if (/^text\/event-stream\s*(;|$)/i.test(res.headers['content-type'] ?? '')) {
        res.once('close', release);
        // A batch may be answered by several events: only a single message's stream is collapsed.
        if ((init.body as string).trimStart().startsWith('[')) return resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, options));
        return collapseStream(res, options, resolve, init.body as string, limit, () => fail(tooLarge(limit)));
      }
      readBounded(
        res,
        limit.maxMessageBytes,
        (text) => {
          release();
          resolve(wholeResponse(options, text));
        },
        fail,
        () => fail(tooLarge(limit)),
      );
    });
    const onAbort = () => request.destroy(signal?.reason instanceof Error ? signal.reason : new Error(String(signal?.reason)));
    function release() {
      signal?.removeEventListener('abort', onAbort);
    }
    function fail(error: Error) {
      release();
      reject(error);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    request.once('error', fail);
    request.on('timeout', () => request.destroy(new Error(`the upstream sent nothing for ${IDLE_TIMEOUT_MS / 1000} s`)));
    request.end(init.body as string);
  });
}

/**
 * An upstream answering one request as an event stream (as the SDK's servers and the
 * reference servers do by default) usually sends just the response and closes. That case
 * is handed to the SDK as the equivalent `application/json` answer, sparing it the
 * TextDecoderStream → EventSourceParserStream pipeline per call. Anything else first (a
 * progress or log notification, a ping or other request, an unknown event type, the
 * stream ending without an answer) hands the SDK the stream itself: the bytes read so far,
 * then the rest as it arrives, so what it sees and when is what it would have seen.
 * After the response nothing more belongs to this request (the spec has the server close
 * the stream); the rest is read and dropped.
 */
function collapseStream(
  res: IncomingMessage,
  options: ResponseInit & { headers: Headers; status: number },
  resolve: (response: Response) => void,
  requestBody: string,
  limit: Limit,
  refuse: () => void,
): void {
  const seen: Buffer[] = [];
  const overgrown = eventSizeGuard(limit.maxMessageBytes);
  let settled = false;
  const parser = createParser({
    onEvent(event) {
      if (settled || event.data === '') return; // priming events and keep-alives say nothing yet
      const answer = event.event === undefined || event.event === 'message' ? responseOf(event.data) : undefined;
      if (answer !== undefined) {
        settled = true;
        const headers = new Headers(options.headers);
        headers.set('content-type', 'application/json');
        res.off('data', onData);
        res.resume();
        return resolve(wholeResponse({ ...options, headers }, event.data, answer));
      }
      stream();
    },
  });
  const decoder = new TextDecoder();
  let size = 0;
  function onData(chunk: Buffer) {
    if (overgrown(chunk)) {
      settled = true;
      res.off('data', onData);
      res.destroy();
      return refuse();
    }
    seen.push(chunk);
    size += chunk.length;
    // Comments, priming events or one very large answer: the SDK reads the stream itself (as it always could).
    if (size > MAX_COLLAPSE_BYTES) return stream();
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  function stream() {
    if (settled) return;
    settled = true;
    res.off('data', onData);
    res.pause();
    const rest = Readable.toWeb(res) as ReadableStream<Uint8Array>;
    const replayed = Buffer.concat(seen);
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        if (replayed.length > 0) controller.enqueue(new Uint8Array(replayed));
        try {
          for await (const chunk of rest) {
            if (overgrown(Buffer.from(chunk))) {
              // The SDK reads the request's answer from this stream: the error stands in for it, and the rest is not read.
              controller.enqueue(new TextEncoder().encode(`\n\ndata: ${JSON.stringify(tooLargeAnswer(requestBody, limit))}\n\n`));
              res.destroy();
              break;
            }
            controller.enqueue(chunk);
          }
          controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
      cancel: (reason) => void rest.cancel(reason).catch(() => undefined),
    });
    resolve(new Response(body, options));
  }
  res.on('data', onData);
  res.once('end', stream);
  res.once('error', stream);
}

function tooLarge(limit: Limit): MessageTooLargeError {
  return new MessageTooLargeError(limit.upstream, limit.maxMessageBytes, false);
}

/** The JSON-RPC error response to the request in `requestBody` that stands for an answer too large to read. */
function tooLargeAnswer(requestBody: string, limit: Limit): object {
  const { code, message, data } = tooLarge(limit);
  let id: unknown = null;
  try {
    id = (JSON.parse(requestBody) as { id?: unknown }).id ?? null;
  } catch {
    // Not a single request: no id to answer.
  }
  return { jsonrpc: '2.0', id, error: { code, message, data } };
}

/** The event's message if it is a JSON-RPC response (an id and a result or an error, no method), else undefined. */
function responseOf(data: string): object | undefined {
  try {
    const message = JSON.parse(data) as Record<string, unknown> | null;
    const answers = typeof message === 'object' && message !== null && !Array.isArray(message) && message.id !== undefined && !('method' in message) && ('result' in message || 'error' in message);
    return answers ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A body already read whole, as the `Response` members the SDK's transport uses (status,
 * headers, json/text, a null body to cancel). A web `Response` would wrap the text in a
 * ReadableStream only for the SDK to read it back through it, per call.
 */
function wholeResponse(options: ResponseInit & { headers: Headers; status: number }, text: string | undefined, parsed?: object): Response {
  const body = text ?? '';
  const response = {
    ok: options.status >= 200 && options.status < 300,
    status: options.status,
    statusText: options.statusText ?? '',
    headers: options.headers,
    url: '',
    type: 'basic',
    redirected: false,
    body: null,
    bodyUsed: false,
    text: async () => body,
    // Read once here already when the answer came as an event (the SDK validates what it gets, and copies it).
    json: async () => parsed ?? (JSON.parse(body) as unknown),
    arrayBuffer: async () => new TextEncoder().encode(body).buffer,
  };
  return response as unknown as Response;
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}
