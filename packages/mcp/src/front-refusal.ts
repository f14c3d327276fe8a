import { isIPv6 } from 'node:net';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

/**
 * What both HTTP fronts (http-front.ts, web-front.ts) answer a request they refuse before
 * MCP sees it: the HTTP status, with a JSON-RPC error body (`id: null`, the request was
 * not read as one), as the SDK's own transports answer. One shape for every refusal: a
 * client reads the same thing from a bad Host, a big body or bad JSON.
 */
export function frontRefusal(status: number, message: string): { status: number; headers: Record<string, string>; body: string } {
  const code = status === 400 && message === NOT_JSON ? ErrorCode.ParseError : status === 400 ? ErrorCode.InvalidRequest : SERVER_ERROR;
  return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }) };
}

export const NOT_JSON = 'the body is not JSON';

/** A POST whose `Content-Type` is not JSON in UTF-8 (`isUtf8JsonContentType`): refused before its body is read. */
export const NOT_UTF8_JSON = 'Unsupported Media Type: Content-Type must be application/json in UTF-8 (no other charset)';

// JSON-RPC's implementation-defined server error, as the SDK transports use for HTTP-level refusals.
const SERVER_ERROR = -32000;

/**
 * The browser origins of a loopback endpoint itself (`http://127.0.0.1:<port>`,
 * `localhost`, `[::1]`): a page the endpoint's own origin serves is not cross-site. Only
 * for a loopback bind; elsewhere the operator lists origins.
 */
export function loopbackOrigins(host: string, port: number): string[] {
  if (!isLoopback(host)) return [];
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
}

/**
 * A loopback host, however it is written: `localhost`, `127.x.y.z`, and IPv6 loopback bare
 * or bracketed as in a URL or Host header, in any spelling (`::1`, `[0:0:0:0:0:0:0:1]`,
 * `::ffff:127.0.0.1`).
 */
export function isLoopback(host: string): boolean {
  const bare = unbracketed(host).toLowerCase();
  if (bare === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)) return true;
  if (!isIPv6(bare)) return false;
  // One spelling for every IPv6 form: the URL parser's (an IPv4-mapped address comes out in hex).
  const canonical = new URL(`http://[${bare}]/`).hostname;
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

/** `[::1]` → `::1`: a host as `listen` takes it (URLs and Host headers bracket an IPv6 address). */
export function unbracketed(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** `::1` → `[::1]`: a host as a URL or a Host header writes it. */
export function bracketed(host: string): string {
  const bare = unbracketed(host);
  return isIPv6(bare) ? `[${bare}]` : bare;
}
