import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Kept-alive connections to the upstreams, shared by every transport of this process. */
const AGENTS: Record<string, HttpAgent> = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
const NO_BODY = new Set([101, 204, 205, 304]);

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
export const upstreamFetch: FetchLike = (url, init) => {
  const target = typeof url === 'string' ? new URL(url) : url;
  const agent = AGENTS[target.protocol];
  if (init === undefined || init.method !== 'POST' || init.redirect !== 'manual' || typeof init.body !== 'string' || agent === undefined) return fetch(url, init);
  return post(target, agent, init);
};

function post(target: URL, agent: HttpAgent, init: RequestInit): Promise<Response> {
  return new Promise((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) return reject(signal.reason);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(target, { method: 'POST', headers: Object.fromEntries(new Headers(init.headers)), agent }, (res) => {
      const status = res.statusCode ?? 0;
      const options = { status, statusText: res.statusMessage ?? '', headers: headersOf(res) };
      if (NO_BODY.has(status)) {
        res.resume();
        res.once('end', release);
        return resolve(new Response(null, options));
      }
      if (/^text\/event-stream\s*(;|$)/i.test(res.headers['content-type'] ?? '')) {
        res.once('close', release);
        return resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, options));
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        release();
        resolve(new Response(Buffer.concat(chunks), options));
      });
      res.once('error', fail);
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
    request.end(init.body as string);
  });
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}
