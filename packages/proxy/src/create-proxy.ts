import { CanonicalizationError, jsonCharsetProblem, parseStrictJson } from '@countersign/core/canonical';
import { intentTask } from '@countersign/core/integration';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { TaskExtractor } from '@countersign/semantic';
import type { Authenticate } from './authenticate.ts';
import { conversationOf } from './conversation.ts';
import { chatStreamWatcher } from './chat/stream-watcher.ts';
import { chatToolCalls } from './chat/tool-calls.ts';
import { chatToolMessages } from './chat/tool-messages.ts';
import { checkRelayed } from './check-relayed.ts';
import { PRINCIPAL_HEADER, RUN_HEADER, SESSION_HEADER } from './headers.ts';
import type { ModelCall, ModelCalls } from './model-call.ts';
import { type CallIntent, recordCalls } from './record-calls.ts';
import type { RelayGate } from './relay-port.ts';
import { auditShapeRefusal } from './report-shape.ts';
import { isRecord, type RelayedResults } from './relayed.ts';
import { type ErrorFormat, errorBody, errorResponse, invalidRequest, type ProxyError } from './refusal.ts';
import { messagesErrorBody } from './messages/error-body.ts';
import { messagesStreamWatcher } from './messages/stream-watcher.ts';
import { messagesToolResults } from './messages/tool-results.ts';
import { messageToolUses } from './messages/tool-uses.ts';
import { responseFunctionCalls } from './responses/function-calls.ts';
import { responsesStreamWatcher } from './responses/stream-watcher.ts';
import { responsesToolOutputs } from './responses/tool-outputs.ts';
import type { RunContext } from './run-context.ts';
import { guardStream, type StreamWatcher } from './sse/guard-stream.ts';
import { callUpstream, passBack, type UpstreamConfig } from './upstream.ts';
import { unreadableUpstream } from './upstream-error.ts';

export interface ProxyOptions {
  /** The approval service: its ledger records the model's calls (check 2) and their results (check 5). */
  gate: RelayGate;
  /** Who the agent is: its own Countersign token (`agentTokens`), never the upstream key. */
  authenticate: Authenticate;
  /** The OpenAI-compatible endpoint the proxy forwards to, with the key the proxy (not the agent) holds. */
  upstream: UpstreamConfig;
  /**
   * The Anthropic Messages API endpoint (`https://api.anthropic.com/v1`) for `POST /v1/messages`,
   * with the key the proxy holds (sent as `x-api-key`). Unset: `/v1/messages` is not proxied.
   */
  anthropic?: UpstreamConfig | undefined;
  /** Other requests forwarded unchanged (after authentication). Default: `GET /v1/models[/<id>]`. */
  passThrough?: ((method: string, path: string) => boolean) | undefined;
  /** Largest request body accepted. Default 16 MiB. */
  maxBodyBytes?: number | undefined;
  /**
   * Extracts the user's current task from the conversation in each request, for the
   * approval service's intent stage (`semantic:`): only the sentence is proposed with the
   * model's calls, never the conversation. Asked only when a response has tool calls. A
   * failed extraction proposes no task: the intent stage then fails closed.
   */
  extractor?: TaskExtractor | undefined;
}

/** How one API shape is read: where its relayed results are, where its tool calls are, and how its clients read an error. */
interface ApiShape {
  relayed(body: Record<string, unknown>): RelayedResults;
  /** `text` is the response as decoded, for a shape that must read it again. */
  calls(response: unknown, text: string): ModelCalls;
  watcher(): StreamWatcher;
  error: ErrorFormat;
}

const CHAT: ApiShape = { relayed: chatToolMessages, calls: chatToolCalls, watcher: chatStreamWatcher, error: errorBody };
const RESPONSES: ApiShape = {
  relayed: responsesToolOutputs,
  calls: (response) => responseFunctionCalls(isRecord(response) ? response.output : undefined),
  watcher: responsesStreamWatcher,
  error: errorBody,
};
const MESSAGES: ApiShape = { relayed: messagesToolResults, calls: messageToolUses, watcher: messagesStreamWatcher, error: messagesErrorBody };

// Not streaming, so one decoder serves every request (constructing one per request shows in profiles).
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const LENIENT_UTF8 = new TextDecoder('utf-8');
// Tool schemas nest; 256 levels is far beyond any real request and still bounds the scan.
const MAX_BODY_DEPTH = 256;
const MODELS = /^\/v1\/models(\/[^/]+)?$/;
const defaultPassThrough = (method: string, path: string) => method === 'GET' && MODELS.test(path);

/**
 * The OpenAI-compatible recording proxy (CASA checks 2 and 5). On each completion request:
 * authenticate the agent, check every relayed tool result against the ledger (check 5),
 * forward the body unchanged to the upstream with the proxy's key, then record every tool
 * call of the model's response before the client can see it complete (check 2).
 */
export function createProxy(options: ProxyOptions): Hono {
  const app = new Hono({ strict: true });
  const passThrough = options.passThrough ?? defaultPassThrough;
  const maxBody = options.maxBodyBytes ?? 16 * 1024 * 1024;
  const limit = bodyLimit({
    maxSize: maxBody,
    onError: () => errorResponse({ status: 413, type: 'invalid_request_error', code: 'body_too_large', message: 'the request body is too large' }),
  });

  const completion = (shape: ApiShape, upstreamConfig: UpstreamConfig, upstreamPath: string) => async (c: { req: { raw: Request; arrayBuffer(): Promise<ArrayBuffer> } }) => {
    const refuse = (error: ProxyError) => errorResponse(error, shape.error);
    const request = c.req.raw;
    const ctx = await runContext(options, request);
    if ('status' in ctx) return refuse(ctx);
    // The body is read, checked and forwarded as UTF-8: a body declaring another charset is refused unread (the service's rule).
    const charset = jsonCharsetProblem(request.headers.get('content-type'));
    if (charset !== undefined) return refuse({ status: 415, type: 'invalid_request_error', code: 'unsupported_media_type', message: charset });
    const bytes = await c.req.arrayBuffer();
    let body: unknown;
    try {
      // Strict (duplicate keys, lone surrogates...): the bytes forwarded must mean to the upstream what they meant to the check.
      body = parseStrictJson(UTF8.decode(bytes), { maxBytes: maxBody, maxDepth: MAX_BODY_DEPTH });
    } catch (error) {
      const why = error instanceof CanonicalizationError ? `${error.code}: ${error.message}` : 'not UTF-8 JSON';
      return refuse(invalidRequest('invalid_json', `the request body is not strict JSON (${why})`));
    }
    if (!isRecord(body)) return refuse(invalidRequest('invalid_json', 'the request body must be a JSON object'));
    const relayed = shape.relayed(body);
    if (!relayed.ok) {
      await auditShapeRefusal(ctx, relayed.error);
      return refuse(relayed.error);
    }
    const refusal = await checkRelayed(ctx, relayed);
    if (refusal !== undefined) return refuse(refusal);

    const task = taskOnce(options.extractor, body, ctx, request.signal);
    const called = await callUpstream(upstreamConfig, upstreamPath, request, bytes);
    if (!called.ok) return refuse(called.error);
    const upstream = called.response;
    if (upstream.status < 200 || upstream.status > 299) return passBack(upstream, upstream.stream());
    if ((upstream.headers.get('content-type') ?? '').includes('text/event-stream')) {
      const events = upstream.stream();
      if (events === null) return refuse(unreadableUpstream('an event stream without a body'));
      const record = async (calls: readonly ModelCall[], ref: string | undefined) => recordCalls(ctx, calls, ref, calls.length === 0 ? {} : await task());
      return passBack(upstream, guardStream(events, shape.watcher(), record, shape.error));
    }
    const answer = await upstream.bytes();
    let text = '';
    let parsed: unknown;
    try {
      // Decoded as the client decodes it (invalid UTF-8 read as U+FFFD): the calls recorded are the ones it will read.
      text = LENIENT_UTF8.decode(answer);
      parsed = JSON.parse(text);
    } catch {
      return refuse(unreadableUpstream('the response is not JSON'));
    }
    const calls = shape.calls(parsed, text);
    if (!calls.ok) return refuse(calls.error);
    const responseRef = isRecord(parsed) && typeof parsed.id === 'string' ? parsed.id : undefined;
    const recorded = await recordCalls(ctx, calls.calls, responseRef, calls.calls.length === 0 ? {} : await task());
    if (recorded !== undefined) return refuse(recorded);
    // The upstream's bytes, unchanged (invalid UTF-8 included): what the client reads is exactly what was recorded from.
    return passBack(upstream, answer);
  };

  app.post('/v1/chat/completions', limit, completion(CHAT, options.upstream, '/chat/completions'));
  app.post('/v1/responses', limit, completion(RESPONSES, options.upstream, '/responses'));
  if (options.anthropic !== undefined) app.post('/v1/messages', limit, completion(MESSAGES, options.anthropic, '/messages'));
  app.all('*', async (c) => {
    const request = c.req.raw;
    if (!passThrough(request.method, c.req.path)) {
      return errorResponse({ status: 404, type: 'invalid_request_error', code: 'not_proxied', message: `${request.method} ${c.req.path} is not served by the Countersign proxy` });
    }
    if ((await options.authenticate(request)) === undefined) return errorResponse(unauthenticated());
    const called = await callUpstream(options.upstream, c.req.path.replace(/^\/v1/, ''), request, undefined);
    return called.ok ? passBack(called.response, called.response.stream()) : errorResponse(called.error);
  });
  app.onError((error) => errorResponse({ status: 502, type: 'countersign_upstream_error', code: 'proxy_failed', message: error.message }));
  return app;
}

/**
 * The request's task (core's `intentTask`: a failed or unusable extraction is no task),
 * with the actions the assistant offered and the user only accepted (`offered`, so the
 * matcher does not read "ok sure" as the user asking for the offer), extracted at most
 * once and only when first asked for (a response with tool calls).
 */
function taskOnce(extractor: TaskExtractor | undefined, body: Record<string, unknown>, ctx: RunContext, signal: AbortSignal): () => Promise<CallIntent> {
  let pending: Promise<CallIntent> | undefined;
  return () => {
    pending ??= intentTask(extractor === undefined ? undefined : { extractor }, () => conversationOf(body), ctx, signal);
    return pending;
  };
}

async function runContext(options: ProxyOptions, request: Request): Promise<RunContext | ProxyError> {
  const identity = await options.authenticate(request);
  if (identity === undefined) return unauthenticated();
  const runId = request.headers.get(RUN_HEADER);
  if (runId === null || runId === '') {
    return invalidRequest('missing_run', `set the ${RUN_HEADER} header (the run id the agent also gives the MCP gateway)`);
  }
  const principal = identity.principal ?? request.headers.get(PRINCIPAL_HEADER) ?? undefined;
  if (principal === undefined || principal === '') {
    return invalidRequest('missing_principal', `set the ${PRINCIPAL_HEADER} header: this agent's credentials name no principal`);
  }
  const sessionId = request.headers.get(SESSION_HEADER) || runId;
  return { port: options.gate.port(identity.agent), agent: identity.agent, runId, sessionId, principal };
}

function unauthenticated(): ProxyError {
  return { status: 401, type: 'authentication_error', code: 'invalid_api_key', message: 'a valid Countersign agent token is required (Authorization: Bearer …)' };
}
