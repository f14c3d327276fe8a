import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { GatePort } from '@countersign/core/gate';
import { createProxy, RUN_HEADER, PRINCIPAL_HEADER, SESSION_HEADER, type UpstreamConfig } from '@countersign/proxy';
import { createAdaptorServer } from '@hono/node-server';

/** The header the Claude runtime names its session with on every Messages API request. */
export const RUNTIME_SESSION_HEADER = 'x-claude-code-session-id';

export interface RelayProxyOptions {
  port: GatePort;
  principal: string;
  /** The Countersign run and session of an SDK session: the same the hooks use. */
  runIdOf: (sdkSessionId: string) => string;
  sessionIdOf: (sdkSessionId: string) => string;
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
 * call (check 5), which no hook of the SDK can see. A refusal the hooks gave passes
 * when it is exactly the text they recorded in the ledger for that call (`call_refused`);
 * a shape the proxy cannot check is refused, and audited by the proxy (`unknown_shape`).
 * The run is the one the hooks use, named from the runtime's session header, never from
 * anything the model writes; a request without it is refused. The runtime authenticates with a random key that only
 * this proxy accepts; the model's own key stays here.
 */
export async function startRelayProxy(options: RelayProxyOptions): Promise<RunningRelayProxy> {
  const key = randomBytes(32).toString('base64url');
  const keyDigest = sha256(key);
  const proxy = createProxy({
    gate: { port: () => options.port },
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
    return proxy.fetch(new Request(request, { headers }));
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

function messagesError(status: number, type: string, code: string, message: string): Response {
  return new Response(JSON.stringify({ type: 'error', error: { type, message, code } }), { status, headers: { 'content-type': 'application/json' } });
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
