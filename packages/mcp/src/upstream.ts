import type { Readable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type ClientCapabilities,
  type CompleteRequest,
  type CompleteResult,
  CallToolResultSchema,
  ErrorCode,
  McpError,
  type GetPromptResult,
  type Progress,
  type Prompt,
  PromptListChangedNotificationSchema,
  type ReadResourceResult,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
  type ServerCapabilities,
  type Tool,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { plainToolResult } from './plain-shapes.ts';
import { boundedUpstreamFetch } from './upstream-fetch.ts';
import { DEFAULT_MAX_MESSAGE_BYTES, MessageTooLargeError } from './message-size.ts';
import { LeanToolCaller } from './upstream-tool-call.ts';

/** An upstream MCP server: a process the gateway starts (stdio) or a Streamable HTTP endpoint. */
export type UpstreamConfig =
  | { name: string; command: string; args?: string[] | undefined; env?: Record<string, string> | undefined; cwd?: string | undefined }
  | { name: string; url: string; headers?: Record<string, string> | undefined }
  /** An already-made transport (tests, embedding). */
  | { name: string; transport: Transport };

/** A connected upstream: the gateway's MCP client to it. */
export interface Upstream {
  readonly name: string;
  readonly client: Client;
  /** Connected now: false once its connection closed (a stdio upstream exited), or while it is down (supervised-upstream.ts). */
  readonly available: boolean;
  /** What the upstream declared at initialize: the gateway relays prompts and resources only from those that have them. */
  readonly capabilities: ServerCapabilities;
  listTools(): Promise<Tool[]>;
  /**
   * Calls the upstream's tool with exactly the arguments `argsJson` (JSON text of an
   * object, sent as it is); the result as it came, checked to be a `CallToolResult`.
   */
  callTool(tool: string, argsJson: string, options?: UpstreamCallOptions): Promise<CallToolResult>;
  /** Every prompt, all pages followed ([] when the upstream has no prompts). */
  listPrompts(): Promise<Prompt[]>;
  getPrompt(name: string, args: Record<string, string> | undefined): Promise<GetPromptResult>;
  /** Every resource, all pages followed ([] when the upstream has no resources). */
  listResources(): Promise<Resource[]>;
  listResourceTemplates(): Promise<ResourceTemplate[]>;
  readResource(uri: string): Promise<ReadResourceResult>;
  /** Argument completion for one of its prompts or resource templates. */
  complete(params: CompleteRequest['params']): Promise<CompleteResult>;
  close(): Promise<void>;
}

/** What the client's own `tools/call` brings to the upstream call it becomes. */
export interface UpstreamCallOptions {
  /** The client's cancellation (its `notifications/cancelled`, or it went away): the upstream is told the call is abandoned. */
  signal?: AbortSignal | undefined;
  /** The client sent a progress token: the upstream gets one, and its progress comes back here (each one restarts the wait). */
  onprogress?: ((progress: Progress) => void) | undefined;
}

/**
 * How the gateway relays what an upstream asks of the client (sampling, elicitation,
 * roots, logging, resource updates): the capabilities it declares upstream (read at each
 * connect: what the gateway's clients declared), and the handlers it installs on the
 * upstream's client before it connects (see client-relay.ts).
 */
export interface UpstreamRelay {
  readonly capabilities: ClientCapabilities;
  attach(client: Client, upstream: string, declared: ClientCapabilities): void;
  /** Sets again on a new connection what the clients set on the previous one (log level, resource subscriptions). */
  restore?(upstream: Upstream): Promise<void>;
}

/**
 * No request timeout of the gateway's own on a tool call (setTimeout's largest delay): the
 * call ends when the upstream answers, the client cancels it or goes away (its own timeout).
 */
export const NO_CEILING_MS = 2_147_483_647;

// Pages of a listing a gateway follows before it stops: a server that never ends its listing is cut off.
const MAX_PAGES = 100;

export async function connectUpstream(
  config: UpstreamConfig,
  onToolsChanged: () => void,
  onListChanged?: (kind: 'prompts' | 'resources') => void,
  relay?: UpstreamRelay,
  log?: (line: string) => void,
  /** The client capabilities declared at the upstream's initialize. Default: what `relay` says now. */
  declared: ClientCapabilities = relay?.capabilities ?? {},
  /** The largest message read from the upstream (message-size.ts). */
  maxMessageBytes: number = DEFAULT_MAX_MESSAGE_BYTES,
): Promise<Upstream> {
  const client = new Client({ name: 'countersign-mcp-gateway', version: '0.1.0' }, { capabilities: declared });
  relay?.attach(client, config.name, declared);
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged());
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => onListChanged?.('prompts'));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => onListChanged?.('resources'));
  const transport = transportOf(config, maxMessageBytes);
  if (transport instanceof StdioClientTransport) failTooLarge(client, config.name, maxMessageBytes);
  // A stdio upstream's stderr is its log: each line goes to the gateway's, under its name (an upstream that fails at start says why there).
  if (transport instanceof StdioClientTransport) logLines(transport, (line) => (log ?? defaultLog)(`[${config.name}] ${line}`));
  let closed = false;
  client.onclose = () => {
    closed = true;
  };
  await client.connect(transport);
  const capabilities = client.getServerCapabilities() ?? {};
  // Streamable HTTP upstreams: tools/call goes out on the lean path (upstream-tool-call.ts), in the SDK client's session.
  const lean = transport instanceof StreamableHTTPClientTransport && 'url' in config ? new LeanToolCaller(new URL(config.url), config.headers ?? {}, transport, client, { upstream: config.name, maxMessageBytes }) : undefined;
  /** The SDK client's request path: stdio upstreams, and a call the upstream redirected (the SDK follows it within the origin). */
  const sdkCallTool = async (tool: string, argsJson: string, options: UpstreamCallOptions = {}) =>
    client.request({ method: 'tools/call', params: { name: tool, arguments: JSON.parse(argsJson) as Record<string, unknown> } }, CallToolResultSchema, {
      timeout: NO_CEILING_MS,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onprogress === undefined ? {} : { onprogress: options.onprogress, resetTimeoutOnProgress: true }),
    }) as Promise<CallToolResult>;

  /** Follows `nextCursor` until the listing ends, at most MAX_PAGES pages. */
  async function allPages<T>(what: string, page: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < MAX_PAGES; n++) {
      const listed = await page(cursor);
      items.push(...listed.items);
      cursor = listed.nextCursor;
      if (cursor === undefined) return items;
    }
    throw new Error(`${config.name}: ${what} did not end after ${MAX_PAGES} pages`);
  }
  const params = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });

  return {
    name: config.name,
    client,
    get available() {
      return !closed;
    },
    capabilities,
    listTools: () =>
      allPages('tools/list', async (cursor) => {
        const r = await client.listTools(params(cursor));
        return { items: r.tools, nextCursor: r.nextCursor };
      }),
    async callTool(tool, argsJson, options = {}) {
      // A plain request, not client.callTool: the gateway relays the upstream's result as it came, it does not judge it.
      // Progress is the SDK client's (it names the upstream's token and routes the notifications back).
      if (lean === undefined || options.onprogress !== undefined) return sdkCallTool(tool, argsJson, options);
      const answer = await lean.call(tool, argsJson, options.signal);
      if (!answer.ok) return sdkCallTool(tool, argsJson, options);
      // The same check the SDK client's request made of the result (zod's copy, with its defaults, is what is relayed).
      const plain = plainToolResult(answer.result);
      if (plain !== undefined) return plain;
      const checked = CallToolResultSchema.safeParse(answer.result);
      if (!checked.success) throw new McpError(ErrorCode.InvalidParams, `the upstream's tools/call result is not a CallToolResult: ${checked.error.message}`);
      return checked.data as CallToolResult;
    },
    async listPrompts() {
      if (capabilities.prompts === undefined) return [];
      return allPages('prompts/list', async (cursor) => {
        const r = await client.listPrompts(params(cursor));
        return { items: r.prompts, nextCursor: r.nextCursor };
      });
    },
    getPrompt: (name, args) => client.getPrompt(args === undefined ? { name } : { name, arguments: args }),
    async listResources() {
      if (capabilities.resources === undefined) return [];
      return allPages('resources/list', async (cursor) => {
        const r = await client.listResources(params(cursor));
        return { items: r.resources, nextCursor: r.nextCursor };
      });
    },
    async listResourceTemplates() {
      if (capabilities.resources === undefined) return [];
      try {
        return await allPages('resources/templates/list', async (cursor) => {
          const r = await client.listResourceTemplates(params(cursor));
          return { items: r.resourceTemplates, nextCursor: r.nextCursor };
        });
      } catch (error) {
        // Templates are optional within the resources capability: an upstream without them has none.
        if (error instanceof McpError && error.code === ErrorCode.MethodNotFound) return [];
        throw error;
      }
    },
    readResource: (uri) => client.readResource({ uri }),
    complete: (params) => client.complete(params),
    close: () => {
      lean?.close();
      return client.close();
    },
  };
}

function transportOf(config: UpstreamConfig, maxMessageBytes: number): Transport {
  if ('transport' in config) return config.transport;
  if ('url' in config) {
    return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} }, fetch: boundedUpstreamFetch(config.name, maxMessageBytes) });
  }
  return new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    // The SDK's safe default environment (PATH, HOME...), not the gateway's secrets, plus what the operator names.
    env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    // Read line by line into the gateway's log (logLines): never the gateway's stdout, its MCP channel.
    stderr: 'pipe',
    // The SDK stops reading a line past this size, reports it (onerror) and closes the connection.
    maxBufferSize: maxMessageBytes,
  });
}

/**
 * A stdio upstream whose line outgrew `maxMessageBytes`: the SDK transport reports it and
 * closes the connection, which fails every request under way with "Connection closed".
 * Those requests fail instead with the typed `MessageTooLargeError` (the supervisor
 * restarts the upstream, as after any closed connection).
 */
function failTooLarge(client: Client, upstream: string, maxMessageBytes: number): void {
  let tooLarge = false;
  client.onerror = (error) => {
    // The SDK's ReadBuffer's words (client/stdio.js); the test 'a stdio upstream's result above maxMessageBytes' holds them to it.
    if (error.message.startsWith('ReadBuffer exceeded maximum size')) tooLarge = true;
  };
  const request = client.request.bind(client);
  client.request = ((...args: Parameters<typeof request>) =>
    request(...args).catch((error: unknown) => {
      throw tooLarge && error instanceof McpError && error.code === ErrorCode.ConnectionClosed ? new MessageTooLargeError(upstream, maxMessageBytes, true) : error;
    })) as typeof client.request;
}

function defaultLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Each line the process writes on stderr, as it comes (the stream exists before the process starts). */
function logLines(transport: StdioClientTransport, log: (line: string) => void): void {
  let partial = '';
  const stream = transport.stderr as Readable | null;
  stream?.on('data', (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split(/\r?\n/);
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') log(line);
  });
  stream?.on('end', () => {
    if (partial.trim() !== '') log(partial);
    partial = '';
  });
}
