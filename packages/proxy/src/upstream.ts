import { DROPPED_RESPONSE_HEADERS, FORWARDED_REQUEST_HEADERS } from './headers.ts';
import type { ProxyError } from './refusal.ts';

/** Where the model is: any OpenAI-compatible base URL (with its `/v1`), and the key the proxy holds for it. */
export interface UpstreamConfig {
  /** E.g. `https://api.openai.com/v1`: the proxy's `/v1/<path>` goes to `<baseUrl>/<path>`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; read from the proxy's configuration, never from the agent. */
  apiKey?: string | undefined;
  /** Extra headers for every upstream request (organization, project...). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Default: the global `fetch`. */
  fetch?: typeof fetch | undefined;
}

/** Sends the request on with the proxy's credentials; the body bytes are the agent's, unchanged. */
export async function callUpstream(
  config: UpstreamConfig,
  path: string,
  request: Request,
  body: ArrayBuffer | undefined,
): Promise<{ ok: true; response: Response } | { ok: false; error: ProxyError }> {
  const headers = new Headers(config.headers);
  for (const name of FORWARDED_REQUEST_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers.set(name, value);
  }
  if (config.apiKey !== undefined) headers.set('authorization', `Bearer ${config.apiKey}`);
  const url = `${config.baseUrl.replace(/\/+$/, '')}${path}${new URL(request.url).search}`;
  try {
    // A result object, not instanceof: @hono/node-server replaces the global Response class.
    return { ok: true, response: await (config.fetch ?? fetch)(url, { method: request.method, headers, body: body ?? null, signal: request.signal }) };
  } catch (error) {
    return { ok: false, error: { status: 502, type: 'countersign_upstream_error', code: 'upstream_unavailable', message: `the upstream model did not answer: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

/** The upstream's status and headers, with `body` (its own, or the checked one). */
export function passBack(upstream: Response, body: ReadableStream<Uint8Array> | string | null): Response {
  const headers = new Headers();
  upstream.headers.forEach((value, name) => {
    if (!DROPPED_RESPONSE_HEADERS.has(name)) headers.set(name, value);
  });
  return new Response(body, { status: upstream.status, statusText: upstream.statusText, headers });
}
