import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, type RequestId, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Gateway } from './gateway.ts';
import { plainJsonRpcRequest, plainToolCallParams } from './plain-shapes.ts';
import { RUN_HEADER } from './recorded-call.ts';

/** One 2025-era MCP session of `serve --mcp`: its SDK Server and the direct calls under way. */
export interface WebSession {
  readonly id: string;
  readonly server: Server;
  /** Direct calls under way, by request id: aborted by `notifications/cancelled` or the end of the session. */
  readonly calls: Map<RequestId, AbortController>;
}

/** Largest body read here; a larger one is left to the SDK transport, which applies its own limit. */
const MAX_DIRECT_BODY = 1024 * 1024;

/** What to do with a POST of a session: answered here, or handed to the SDK transport (with the body already read, if it was). */
export type WebPost = { answered: Response } | { answered?: undefined; request: Request; parsedBody?: unknown };

/**
 * `tools/call` of `serve --mcp` without the SDK's web-standard transport and Server
 * dispatch, when nothing can be sent before the answer: the client sent no progress token
 * and did not declare URL elicitation (so the gateway's approval channel is empty and the
 * SDK path would answer with the result alone, as one event). The same checks as the SDK
 * transport's come first (Accept, Content-Type, protocol version; the session is the
 * caller's), the same gateway call runs (`Gateway.callTool`: pins, policy, approvals,
 * checks 3 and 4, typed refusals, the raw result recorded), and the answer is one
 * `application/json` body. Everything else goes to the SDK transport as before; a
 * `notifications/cancelled` naming a direct call aborts it on the way.
 */
export async function webPost(gateway: Gateway, session: WebSession, request: Request): Promise<WebPost> {
  const headers = request.headers;
  const accept = headers.get('accept') ?? '';
  const length = headers.get('content-length');
  const version = headers.get('mcp-protocol-version');
  const checked =
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    headers.get('content-type') === 'application/json' &&
    (version === null || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) &&
    (length === null || Number(length) <= MAX_DIRECT_BODY);
  // Anything the SDK transport would refuse, it refuses itself (same status, same message).
  if (!checked) return { request };
  const read = await readBounded(request);
  if ('request' in read) return read;
  const { text } = read;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { request: new Request(request.url, { method: 'POST', headers, body: text }) };
  }
  cancelDirect(session, body);
  const message = plainJsonRpcRequest(body);
  const params = message?.method === 'tools/call' ? plainToolCallParams(message.params) : undefined;
  const client = session.server.getClientCapabilities();
  if (message === undefined || params === undefined || params._meta?.progressToken !== undefined || client?.elicitation?.url !== undefined) {
    return { request, parsedBody: body };
  }
  const abort = new AbortController();
  session.calls.set(message.id, abort);
  const run = headers.get(RUN_HEADER);
  let answer: object;
  try {
    const result = await gateway.callTool(params.name, params.arguments ?? {}, params._meta, { signal: abort.signal }, run === null || run === '' ? undefined : run);
    answer =
      result === undefined
        ? { jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: `MCP error ${ErrorCode.InvalidParams}: Unknown tool: ${params.name}` } }
        : { result, jsonrpc: '2.0', id: message.id };
  } catch (error) {
    const { code, message: text } = (error ?? {}) as { code?: unknown; message?: unknown };
    answer = { jsonrpc: '2.0', id: message.id, error: { code: Number.isSafeInteger(code) ? code : ErrorCode.InternalError, message: typeof text === 'string' ? text : 'Internal error' } };
  } finally {
    if (session.calls.get(message.id) === abort) session.calls.delete(message.id);
  }
  // As the SDK: a cancelled request is not answered (its stream just ends).
  if (abort.signal.aborted) return { answered: new Response(null, { status: 200, headers: { 'content-type': 'text/event-stream', 'mcp-session-id': session.id } }) };
  return { answered: new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json', 'mcp-session-id': session.id } }) };
}

/**
 * The body as text, read up to MAX_DIRECT_BODY bytes; a longer one is handed back as an
 * equivalent request (the bytes read, then the rest) for the SDK transport to read and limit.
 */
async function readBounded(request: Request): Promise<{ text: string } | { request: Request }> {
  const reader = request.body?.getReader();
  if (reader === undefined) return { text: '' };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8') };
    chunks.push(value);
    size += value.byteLength;
    if (size > MAX_DIRECT_BODY) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
        },
        async pull(controller) {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { request: new Request(request.url, { method: 'POST', headers: request.headers, body, duplex: 'half' } as RequestInit) };
    }
  }
}

/** `notifications/cancelled` (alone or in a batch) for a direct call aborts it; the SDK transport still gets the message. */
function cancelDirect(session: WebSession, body: unknown): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (typeof message !== 'object' || message === null) continue;
    const { method, params } = message as { method?: unknown; params?: { requestId?: unknown; reason?: unknown } };
    if (method !== 'notifications/cancelled' || (typeof params?.requestId !== 'string' && typeof params?.requestId !== 'number')) continue;
    session.calls.get(params.requestId)?.abort(params.reason);
  }
}
