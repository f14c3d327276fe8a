import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { DROPPED_RESPONSE_HEADERS, FORWARDED_REQUEST_HEADERS } from './headers.ts';
import type { ProxyError } from './refusal.ts';

/** Where the model is: any OpenAI-compatible base URL (with its `/v1`), and the key the proxy holds for it. */
export interface UpstreamConfig {
  /** E.g. `https://api.openai.com/v1`: the proxy's `/v1/<path>` goes to `<baseUrl>/<path>`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer` (or `x-api-key`, see `keyHeader`); read from the proxy's configuration, never from the agent. */
  apiKey?: string | undefined;
  /** How the key is sent: `authorization` (Bearer, OpenAI; the default) or `x-api-key` (Anthropic). */
  keyHeader?: 'authorization' | 'x-api-key' | undefined;
  /** Extra headers for every upstream request (organization, project...). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Send with this `fetch` instead of Node's HTTP client (tests, custom transports). */
  fetch?: typeof fetch | undefined;
}

/** The upstream's answer, read once: as a stream (events, pass-through) or as its bytes. */
export interface UpstreamResponse {
  status: number;
  statusText: string;
  headers: Headers;
  stream(): ReadableStream<Uint8Array> | null;
  bytes(): Promise<Uint8Array<ArrayBuffer>>;
}

export type UpstreamCall = { ok: true; response: UpstreamResponse } | { ok: false; error: ProxyError };

// Keep-alive to the upstream: a completion should not pay for a TCP (and TLS) handshake.
const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** Sends the request on with the proxy's credentials; the body bytes are the agent's, unchanged. */
export async function callUpstream(config: UpstreamConfig, path: string, request: Request, body: ArrayBuffer | undefined): Promise<UpstreamCall> {
  const headers = new Headers(config.headers);
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (config.apiKey !== undefined) {
    if (config.keyHeader === 'x-api-key') headers.set('x-api-key', config.apiKey);
    else headers.set('authorization', `Bearer ${config.apiKey}`);
  }
  const query = request.url.indexOf('?');
  const url = `${config.baseUrl.replace(/\/+$/, '')}${path}${query === -1 ? '' : request.url.slice(query)}`;
  try {
    if (config.fetch !== undefined) return { ok: true, response: fromFetch(await config.fetch(url, { method: request.method, headers, body: body ?? null, signal: request.signal })) };
    return { ok: true, response: await nodeRequest(url, request.method, headers, body, request.signal) };
  } catch (error) {
    const message = `the upstream model did not answer: ${error instanceof Error ? error.message : String(error)}`;
    return { ok: false, error: { status: 502, type: 'countersign_upstream_error', code: 'upstream_unavailable', message } };
  }
}

/**
 * One request with Node's HTTP client: measurably cheaper per completion than `fetch`
 * (the bench's target is ≤ 1 ms added), and the body is read as a stream or as text,
 * whichever the response needs.
 */
function nodeRequest(url: string, method: string, headers: Headers, body: ArrayBuffer | undefined, signal: AbortSignal): Promise<UpstreamResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const outgoing: Record<string, string> = {};
  headers.forEach((value, name) => {
    outgoing[name] = value;
  });
  const payload = body === undefined ? undefined : Buffer.from(body);
  if (payload !== undefined) outgoing['content-length'] = String(payload.length);
  return new Promise((resolve, reject) => {
    const send = secure ? httpsRequest : httpRequest;
    const req = send(target, { method, headers: outgoing, agent: secure ? agents.https : agents.http, signal }, (res) => resolve(fromNode(res)));
    req.once('error', reject);
    req.end(payload);
  });
}

function fromNode(res: IncomingMessage): UpstreamResponse {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return {
    status: res.statusCode ?? 502,
    statusText: res.statusMessage ?? '',
    headers,
    stream: () => Readable.toWeb(res) as ReadableStream<Uint8Array>,
    async bytes() {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      const all = Buffer.concat(chunks);
      return new Uint8Array(all.buffer, all.byteOffset, all.byteLength) as Uint8Array<ArrayBuffer>;
    },
  };
}

function fromFetch(response: Response): UpstreamResponse {
  return { status: response.status, statusText: response.statusText, headers: response.headers, stream: () => response.body, bytes: async () => new Uint8Array(await response.arrayBuffer()) };
}

/** The upstream's status and headers, with `body` (its own, or the checked one). */
export function passBack(upstream: UpstreamResponse, body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null): Response {
  const headers = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) headers.set(name, value);
  });
  return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers });
}
