import { randomUUID } from 'node:crypto';
import type { Agent, MatchingCallRequest } from '@countersign/core/gate';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { Protocol, type RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type CallToolRequest,
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  type ClientCapabilities,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalChannel } from './await-approval.ts';
import { callTool } from './call-tool.ts';
import { ClientRelay } from './client-relay.ts';
import { type ServedTool, UpstreamTools } from './upstream-tools.ts';
import type { GatewayGate } from './gateway-gate.ts';
import { NodeStreamableHttpTransport } from './node-http-transport.ts';
import { plainToolCallParams } from './plain-shapes.ts';
import { type CallMode, runFromHeaders } from './recorded-call.ts';
import { toolNaming, upstreamNameProblem } from './names.ts';
import { SERVABLE, type Served, servedBy } from './served.ts';
import { holdInitialize } from './first-initialize.ts';
import { SupervisedUpstream } from './supervised-upstream.ts';
import type { UpstreamConfig } from './upstream.ts';
import { JsonRpcError } from './json-rpc-error.ts';
import { PendingRecordings } from './pending-recordings.ts';

export interface GatewayOptions {
  upstreams: readonly UpstreamConfig[];
  /** The approval service (an embedded `Gate`). */
  gate: GatewayGate;
  /** The gateway's identity at the approval service: it registers the upstreams' tools and owns the runs. */
  agent: Agent;
  /** On whose behalf the MCP client acts. */
  principal: string;
  /**
   * `direct` (default): the `tools/call` is itself the proposal, unless the client names a
   * recorded run in `_meta["countersign/runId"]`. `recorded`: every call must match a
   * recorded model call (checks 3 and 4) of `runId` or of the run the client names.
   */
  calls?: CallMode | undefined;
  /** Direct mode: the run of the gateway's own proposals (default: a fresh one). Recorded mode: the run calls must match. */
  runId?: string | undefined;
  /** Direct mode: the session of its proposals (default: a fresh one). Recorded mode: the agent's session calls must match (default: a client's `_meta["countersign/sessionId"]`, else unchecked). */
  sessionId?: string | undefined;
  /** Prefix tool names with `<upstream>__`. Default: only with several upstreams. */
  namespaced?: boolean | undefined;
  /** How long a `tools/call` that needs approval waits for the decision. Default 0 (answer at once). */
  approvalWaitMs?: number | undefined;
  /**
   * The longest of that wait for a client that sent no progress token, so it gets the link
   * before its own request timeout ends the call (the MCP SDKs' default is 60 s). Default 45 s.
   */
  noProgressWaitMs?: number | undefined;
  /** How long a call waits once the client's user opened the approval page (URL elicitation). Default 10 minutes. */
  elicitationWaitMs?: number | undefined;
  /** How often a call waiting for approval sends `notifications/progress` (when the client sent a progress token). Default 5 s. */
  progressIntervalMs?: number | undefined;
  /** Base URL of the approval pages, for the link in "approval required" results. */
  approvalUrl?: string | undefined;
  /**
   * Strict mode: list a tool's upstream again before every call, so even a definition
   * changed silently (no `notifications/tools/list_changed`) since the last listing is
   * caught at call time. Costs an upstream `tools/list` per call (concurrent calls share
   * one). Default false: pins are re-checked on every client listing and, before any
   * further call is proposed, on every upstream `list_changed` (see `UpstreamTools.beforeCall`).
   */
  relistBeforeCall?: boolean | undefined;
  /** Where the gateway reports (an upstream down or back, each upstream's stderr under its name). Default: stderr. */
  log?: ((line: string) => void) | undefined;
  /**
   * The largest message read from an upstream (a tool result, a listing, a notification),
   * in bytes. A larger one is not read on: the request fails with one JSON-RPC error
   * (-32011, `data.countersign.reason: "message_too_large"`), a tool call is refused
   * `result_too_large`; a stdio upstream is restarted. Default 10 MiB (message-size.ts).
   */
  maxMessageBytes?: number | undefined;
  /** First delay before reconnecting an upstream that is down; it doubles per failed attempt, up to 30 s. Default 250 ms. */
  reconnectBackoffMs?: number | undefined;
}

export interface Gateway {
  /** Serves one MCP client on `transport` (one low-level SDK `Server` per client). */
  connect(transport: Transport): Promise<Server>;
  /** The tools served now: listed upstream, registered, admitted by their pins, and not denied to the principal whatever the arguments. */
  listTools(): Promise<ServedTool[]>;
  /**
   * One `tools/call` through the gate, for a front that is not a 1.x SDK `Server` (the
   * 2026-07-28 front). Undefined when no upstream serves the name (a JSON-RPC error, not a refusal).
   * `headerRun` is the run named in the request's `x-countersign-run` header, if any.
   */
  callTool(name: string, args: Record<string, unknown>, meta?: unknown, channel?: ApprovalChannel, headerRun?: string): Promise<CallToolResult | undefined>;
  close(): Promise<void>;
}

/** Connects to every upstream, then serves MCP clients in front of them. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const names = options.upstreams.map((u) => u.name);
  for (const name of names) {
    const problem = upstreamNameProblem(name);
    if (problem !== undefined) throw new Error(problem);
  }
  if (new Set(names).size !== names.length) throw new Error('upstream names must be distinct');
  const naming = toolNaming(names, options.namespaced ?? names.length > 1);
  const servers = new Set<Server>();
  const upstreams = new Map<string, SupervisedUpstream>();
  let upstreamTools: UpstreamTools | undefined;
  // Known once the upstreams first connected (served.ts); before that no client has been answered.
  let served: Served | undefined;
  const onToolsChanged = (upstream: string) => {
    // The gateway lists the upstream itself first (calls wait for it), then clients list again.
    void (upstreamTools?.listChanged(upstream) ?? Promise.resolve()).then(() => {
      for (const server of servers) void server.sendToolListChanged().catch(() => undefined);
    });
  };
  const onListChanged = (kind: 'prompts' | 'resources') => {
    if (kind === 'resources') served?.resources.invalidate();
    // Only to clients told of that capability (the SDK Server is made with every one, see SERVABLE).
    if (served?.capabilities[kind] === undefined) return;
    for (const server of servers) {
      void (kind === 'prompts' ? server.sendPromptListChanged() : server.sendResourceListChanged()).catch(() => undefined);
    }
  };
  const relay = new ClientRelay();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  // Supervised: an upstream down at start (or later) is retried with backoff while the others serve.
  // Not connected yet: they start with the first client's initialize (or the first request that needs them).
  for (const config of options.upstreams) {
    const hooks = { onToolsChanged: () => onToolsChanged(config.name), onListChanged, relay, log, backoffMs: options.reconnectBackoffMs, maxMessageBytes: options.maxMessageBytes };
    upstreams.set(config.name, SupervisedUpstream.idle(config, hooks));
  }
  relay.use(upstreams);
  // What the upstreams were told the client can do follows the clients (client-relay.ts): declared
  // otherwise, an upstream is connected again, its requests waiting meanwhile.
  relay.onchange = () => {
    for (const upstream of upstreams.values()) void upstream.redeclare();
  };
  upstreamTools = new UpstreamTools(options.gate, options.agent, upstreams, naming);
  let starting: Promise<Served> | undefined;
  /**
   * Connects every upstream once, declaring what the clients (and `pending`, a client whose
   * initialize is being answered) declared; later calls share that start.
   */
  const ready = (pending?: ClientCapabilities): Promise<Served> =>
    (starting ??= (async () => {
      const declared = relay.capabilitiesWith(pending);
      await Promise.all([...upstreams.values()].map((u) => u.start(declared)));
      served = servedBy([...upstreams.values()], naming);
      return served;
    })());
  /** The relay serving `kind`, or the SDK's own "Method not found" when no upstream has it (the client was not told of it). */
  const serving = async <K extends 'prompts' | 'resources' | 'completions'>(kind: K): Promise<Served[K]> => {
    const now = await ready();
    if (!now[kind].available) throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found');
    return now[kind];
  };
  const subscribable = async () => {
    if ((await ready()).capabilities.resources?.subscribe !== true) throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found');
    return serving('resources');
  };
  // The tools the gate admits AND policy lets this principal call with some arguments.
  const visibleTools = async () => {
    const admitted = await upstreamTools.refresh();
    const { toolVisibility } = options.gate;
    if (toolVisibility === undefined) return admitted;
    const seen = await Promise.all(admitted.map((tool) => toolVisibility.call(options.gate, tool.name, options.principal)));
    return admitted.filter((_, i) => seen[i]?.visible === true);
  };
  // A first run without a lock or trust on first use lists nothing: the user is told why, once per set of waiting tools.
  let toldUnreviewed = '';
  const unreviewedNotice = () => {
    const waiting = upstreamTools.unreviewed;
    if (waiting.length === 0) return undefined;
    const where = options.approvalUrl === undefined ? 'on the approval page' : `at ${options.approvalUrl}`;
    const message = `${waiting.length} tool(s) are not served until a person trusts their definitions: pin them with \`countersign mcp pin --config <gateway.yaml>\` and \`lock:\` in the config, or approve their definition reviews ${where}`;
    const key = waiting.join('\u0000');
    if (key !== toldUnreviewed) log(`${message} (${waiting.join(', ')})`);
    toldUnreviewed = key;
    return { unreviewed: [...waiting], message };
  };
  const port = options.gate.port(options.agent);
  const recordings = new PendingRecordings();
  const context = {
    port,
    upstreamTools,
    naming,
    upstreams,
    runId: options.runId ?? `mcp-run-${randomUUID()}`,
    sessionId: options.sessionId ?? `mcp-session-${randomUUID()}`,
    principal: options.principal,
    approvalWaitMs: options.approvalWaitMs ?? 0,
    noProgressWaitMs: options.noProgressWaitMs,
    elicitationWaitMs: options.elicitationWaitMs ?? DEFAULT_ELICITATION_WAIT_MS,
    progressIntervalMs: options.progressIntervalMs ?? DEFAULT_PROGRESS_INTERVAL_MS,
    approvalUrl: options.approvalUrl,
    relistBeforeCall: options.relistBeforeCall ?? false,
    relay,
    recordings,
    recorded: {
      mode: options.calls ?? 'direct',
      runId: options.calls === 'recorded' ? options.runId : undefined,
      sessionId: options.calls === 'recorded' ? options.sessionId : undefined,
      authorizeMatchingCall: (request: MatchingCallRequest) => options.gate.authorizeMatchingCall(request, options.agent),
    },
  };

  /** One tools/call from a 1.x client, whichever path brought it. */
  const toolCall = async (request: CallToolRequest, headerRun: string | undefined, channel: ApprovalChannel) => {
    const { name, arguments: args, _meta: meta } = request.params;
    if (naming.parse(name) === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    return callTool(context, name, args ?? {}, meta, headerRun, channel);
  };

  return {
    async connect(transport) {
      const told: ServerCapabilities = { ...SERVABLE };
      const server = new Server({ name: 'countersign-mcp-gateway', version: '0.1.0' }, { capabilities: told });
      server.setRequestHandler(ListToolsRequestSchema, async () => {
        const tools = (await visibleTools()).map(servedTool);
        const unreviewed = unreviewedNotice();
        return unreviewed === undefined ? { tools } : { tools, _meta: { countersign: unreviewed } };
      });
      // Protocol's registration, not Server's: Server's wraps tools/call to parse the request a
      // second time and the result once more, and every result here is already checked (the
      // upstream's against CallToolResultSchema, refusals built by the gateway).
      Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, (request: CallToolRequest, extra: CallExtra) =>
        // Over HTTP, the run the agent names in its x-countersign-run header (as on the LLM proxy) counts like _meta's.
        toolCall(request, runFromHeaders(extra.requestInfo?.headers), approvalChannel(server, extra)),
      );
      // The gateway's own HTTP front answers tools/call without the SDK Server's dispatch (node-http-transport.ts): same handler, same checks.
      if (transport instanceof NodeStreamableHttpTransport) {
        transport.directHandlers.set('tools/call', (message, extra) => {
          const params = plainToolCallParams(message.params);
          // Any other tools/call (valid or not) goes to the SDK Server as before.
          if (params === undefined) return undefined;
          const channel = approvalChannel(server, {
            signal: extra.signal,
            requestId: message.id,
            ...(params._meta === undefined ? {} : { _meta: params._meta }),
            sendNotification: async (notification) => {
              if (!extra.signal.aborted) await server.notification(notification, { relatedRequestId: message.id });
            },
            sendRequest: async (request, schema, options) => {
              if (extra.signal.aborted) throw new McpError(ErrorCode.ConnectionClosed, 'Request was cancelled');
              return server.request(request, schema, { ...options, relatedRequestId: message.id });
            },
          });
          return toolCall({ method: 'tools/call', params }, runFromHeaders(extra.requestInfo.headers), channel);
        });
      }
      server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: await (await serving('prompts')).list() }));
      server.setRequestHandler(GetPromptRequestSchema, async (request) => (await serving('prompts')).get(request.params.name, request.params.arguments));
      server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await (await serving('resources')).list() }));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: await (await serving('resources')).listTemplates() }));
      server.setRequestHandler(ReadResourceRequestSchema, async (request) => (await serving('resources')).read(request.params.uri));
      server.setRequestHandler(SubscribeRequestSchema, async (request) => {
        const router = await subscribable();
        await relay.subscribe(server, await router.route(request.params.uri), request.params.uri);
        return {};
      });
      server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
        const router = await subscribable();
        await relay.unsubscribe(server, await router.route(request.params.uri), request.params.uri);
        return {};
      });
      // Replaces the SDK Server's own handler: the level filters this client's messages and goes upstream.
      server.setRequestHandler(SetLevelRequestSchema, async (request) => {
        if ((await ready()).capabilities.logging === undefined) throw new JsonRpcError(ErrorCode.MethodNotFound, 'Method not found');
        await relay.setLevel(server, request.params.level);
        return {};
      });
      server.setNotificationHandler(RootsListChangedNotificationSchema, () => relay.rootsChanged());
      server.setRequestHandler(CompleteRequestSchema, async (request) => (await serving('completions')).complete(request.params));
      server.onclose = () => {
        servers.delete(server);
        relay.removed(server);
      };
      server.oninitialized = () => relay.initialized();
      servers.add(server);
      relay.added(server);
      holdInitialize(transport, (declared) =>
        ready(declared).then(
          (now) => tell(told, now.capabilities),
          () => tell(told, TOOLS_ONLY),
        ),
      );
      await server.connect(transport);
      return server;
    },
    listTools: visibleTools,
    callTool: async (name, args, meta, channel, headerRun) => (naming.parse(name) === undefined ? undefined : callTool(context, name, args, meta, headerRun, channel)),
    async close() {
      // Clients leaving now must not have the upstreams connected again on the way out.
      relay.onchange = undefined;
      await Promise.allSettled([...servers].map((s) => s.close()));
      // Results already answered are recorded before whoever owns the store closes it.
      await recordings.settled();
      await Promise.allSettled([...upstreams.values()].map((u) => u.close()));
    },
  };
}

const DEFAULT_ELICITATION_WAIT_MS = 600_000;
const DEFAULT_PROGRESS_INTERVAL_MS = 5_000;

/** What a client is told when the upstreams could not be started at all (an upstream given as a ready transport failed). */
const TOOLS_ONLY: ServerCapabilities = { tools: { listChanged: true } };

/**
 * Sets what a client is told at initialize. Its SDK Server was made with `told` (every
 * servable capability, so each handler could be registered before the upstreams were
 * known) and answers `initialize` with that same object: narrowed here, in place, to what
 * the upstreams serve (the SDK also checks the gateway's notifications against it).
 */
function tell(told: ServerCapabilities, capabilities: ServerCapabilities): void {
  for (const key of Object.keys(told)) delete told[key as keyof ServerCapabilities];
  Object.assign(told, capabilities);
}

type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What `approvalChannel` uses of a request's extra: the SDK Server's, or the direct path's equivalent. */
type ChannelExtra = Pick<CallExtra, 'signal' | '_meta' | 'sendNotification' | 'sendRequest' | 'requestId'>;

/** What this client can be offered while its call waits for approval (see `ApprovalChannel`). */
function approvalChannel(server: Server, extra: ChannelExtra): ApprovalChannel {
  const progressToken = extra._meta?.progressToken;
  // Only a client that declared it gets a URL elicitation (2025-11-25); the SDK refuses to send one otherwise.
  const urlElicitation = server.getClientCapabilities()?.elicitation?.url !== undefined;
  // Progress on one token only increases: the upstream's counts on from the approval wait's last step.
  let waited = 0;
  let base: number | undefined;
  return {
    signal: extra.signal,
    site: { server, relatedRequestId: extra.requestId },
    progress:
      progressToken === undefined
        ? undefined
        : (progress, message) => {
            waited = progress;
            return extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, message } });
          },
    relayProgress:
      progressToken === undefined
        ? undefined
        : ({ progress, total, message }) => {
            base ??= waited;
            const params = { progressToken, progress: base + progress, ...(total === undefined ? {} : { total: base + total }), ...(message === undefined ? {} : { message }) };
            void extra.sendNotification({ method: 'notifications/progress', params }).catch(() => undefined);
          },
    elicitUrl: urlElicitation
      ? async (params, timeoutMs) => {
          // Sent as part of the tools/call (related request): over Streamable HTTP it rides the call's own stream.
          const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'url', ...params } }, ElicitResultSchema, { timeout: timeoutMs, signal: extra.signal });
          return answer.action;
        }
      : undefined,
    completeElicitation: urlElicitation ? (elicitationId) => extra.sendNotification({ method: 'notifications/elicitation/complete', params: { elicitationId } }) : undefined,
  };
}

/** Exactly the pinned definition, nothing else the upstream sent (no unpinned field reaches the model). */
export function servedTool(tool: ServedTool): Tool {
  return { ...tool.definition, inputSchema: (tool.definition.inputSchema ?? { type: 'object' }) as Tool['inputSchema'] } as Tool;
}
