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

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
