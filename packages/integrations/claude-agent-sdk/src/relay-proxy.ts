import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatePort } from '@countersign/core/gate';
import { createProxy, RUN_HEADER, PRINCIPAL_HEADER, type RelayPort, SESSION_HEADER, type UpstreamConfig } from '@countersign/proxy';
import { createAdaptorServer } from '@hono/node-server';
import type { RefusalMemory } from './refusal-memory.ts';

/** The header the Claude runtime names its session with on every Messages API request. */
export const RUNTIME_SESSION_HEADER = 'x-claude-code-session-id';

/** The proxy's refusals that mean "a content block or message of a shape the proxy cannot check". */
const SHAPE_REFUSALS = new Set(['unsupported_tool_result', 'unsupported_message']);

export interface RelayProxyOptions {
  port: GatePort;
  principal: string;
  /** The Countersign run and session of an SDK session: the same the hooks use. */
  runIdOf: (sdkSessionId: string) => string;
  sessionIdOf: (sdkSessionId: string) => string;
  refusals: RefusalMemory;
  /** The Messages API the runtime would have called (`…/v1`), with the key the proxy now holds instead of the runtime. */
  upstream: UpstreamConfig;
}

export interface RunningRelayProxy {
  /** What the runtime gets as `ANTHROPIC_BASE_URL` (it appends `/v1/messages`). */
  readonly baseUrl: string;
  /** What the runtime gets as `ANTHROPIC_API_KEY`: good for this loopback proxy only. */
  readonly key: string;
  close(): Promise<void>;
}

/**
 * Countersign's recording proxy (`@countersign/proxy`, the Messages API path) on loopback
 * in front of the runtime's model, on the integration's own port and runs: every
 * `tool_use` of a response is recorded before the runtime reads it (check 2), and every
 * `tool_result` the runtime sends back is checked against the result recorded for its
 * call (check 5), which no hook of the SDK can see. The run is the one the hooks use,
 * named from the runtime's session header, never from anything the model writes; a
 * request without it is refused. The runtime authenticates with a random key that only
 * this proxy accepts; the model's own key stays here.
 */
export async function startRelayProxy(options: RelayProxyOptions): Promise<RunningRelayProxy> {
  const key = randomBytes(32).toString('base64url');
  const keyDigest = sha256(key);
  const proxy = createProxy({
    gate: { port: () => relayPort(options.port, options.refusals) },
    authenticate: (request) => {
      const presented = request.headers.get('x-api-key');
      if (presented === null || !timingSafeEqual(sha256(presented), keyDigest)) return undefined;
      return { agent: { id: 'claude-agent-sdk-runtime' }, principal: options.principal };
    },
    upstream: options.upstream,
    anthropic: options.upstream,
    // Only the Messages API is served: anything else the runtime asks is refused, never forwarded unchecked.
    passThrough: () => false,
  });

  const front = async (request: Request): Promise<Response> => {
    const sdkSession = request.headers.get(RUNTIME_SESSION_HEADER);
    if (sdkSession === null || sdkSession === '') {
      return messagesError(400, 'invalid_request_error', 'missing_session', `the Claude runtime sent no ${RUNTIME_SESSION_HEADER} header, so the request has no Countersign run`);
    }
    const runId = options.runIdOf(sdkSession);
    const sessionId = options.sessionIdOf(sdkSession);
    const headers = new Headers(request.headers);
    headers.delete(PRINCIPAL_HEADER);
    headers.set(RUN_HEADER, runId);
    headers.set(SESSION_HEADER, sessionId);
    const copy = request.clone();
    const response = await proxy.fetch(new Request(request, { headers }));
    if (response.status === 400) await auditShapeRefusal(options, { runId, sessionId }, response.clone(), copy);
    return response;
  };

  const host = '127.0.0.1';
  const server = createAdaptorServer({ fetch: front, hostname: host }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://${host}:${port}`,
    key,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * The integration's port, with its own refusals let through: a `tool_result` that is
 * exactly a refusal the hooks gave for that call is not the tool's output, and is not
 * sent to the ledger's comparison. Everything else is.
 */
function relayPort(port: GatePort, refusals: RefusalMemory): RelayPort {
  return {
    propose: (response) => port.propose(response),
    reportRefusal: (request) => port.reportRefusal(request),
    recordProviderOutput: (report) => port.recordProviderOutput(report),
    checkRelayed: async (request) => {
      const toolMessages = [];
      for (const message of request.toolMessages) if (!(await refusals.has(request.runId, message.callId, message.content))) toolMessages.push(message);
      if (toolMessages.length === 0) return { ok: true, checked: 0 };
      return port.checkRelayed({ ...request, toolMessages });
    },
  };
}

/**
 * A request refused for a block or message the proxy cannot check is audited as an
 * `unknown_shape` rejection (what every integration does), naming only the type.
 */
async function auditShapeRefusal(options: RelayProxyOptions, run: { runId: string; sessionId: string }, response: Response, request: Request): Promise<void> {
  try {
    const answer = (await response.json()) as { error?: { code?: unknown; param?: unknown } };
    if (!SHAPE_REFUSALS.has(String(answer.error?.code))) return;
    const what = shapeAt(await request.json().catch(() => undefined), String(answer.error?.param ?? ''));
    await options.port.reportRefusal({ ...run, principal: options.principal, reason: 'unknown_shape', detail: `a Messages API request: ${what}`.slice(0, 300) });
  } catch {
    // The refusal stands either way; a report that cannot be written shows as the gate's outage.
  }
}

/** `a content block of type X` or `a message of role X` at the proxy's `param` (`messages[i]…`), never the content. */
function shapeAt(body: unknown, param: string): string {
  const at = /^messages\[(\d+)\](?:\.content\[(\d+)\])?/.exec(param);
  const messages = (body as { messages?: unknown } | undefined)?.messages;
  const message = at === null || !Array.isArray(messages) ? undefined : (messages[Number(at[1])] as { role?: unknown; content?: unknown } | undefined);
  if (at?.[2] !== undefined && Array.isArray(message?.content)) {
    const block = message.content[Number(at[2])] as { type?: unknown } | undefined;
    return `a content block of type ${String(block?.type)}`;
  }
  return `a message of role ${String(message?.role)}`;
}

function messagesError(status: number, type: string, code: string, message: string): Response {
  return new Response(JSON.stringify({ type: 'error', error: { type, message, code } }), { status, headers: { 'content-type': 'application/json' } });
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
