import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, CallToolResultSchema, type Tool, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { upstreamFetch } from './upstream-fetch.ts';

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
  listTools(): Promise<Tool[]>;
  /** Calls the upstream's tool with exactly `args`; the raw result, unvalidated (relayed as it came). */
  callTool(tool: string, args: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

// Pages of tools/list a gateway follows before it stops: a server that never ends its listing is cut off.
const MAX_PAGES = 100;

export async function connectUpstream(config: UpstreamConfig, onToolsChanged: () => void): Promise<Upstream> {
  const client = new Client({ name: 'countersign-mcp-gateway', version: '0.1.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged());
  await client.connect(transportOf(config));
  return {
    name: config.name,
    client,
    async listTools() {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await client.listTools(cursor === undefined ? {} : { cursor });
        tools.push(...listed.tools);
        cursor = listed.nextCursor;
        if (cursor === undefined) return tools;
      }
      throw new Error(`${config.name}: tools/list did not end after ${MAX_PAGES} pages`);
    },
    async callTool(tool, args) {
      // A plain request, not client.callTool: the gateway relays the upstream's result as it came, it does not judge it.
      return (await client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, CallToolResultSchema)) as CallToolResult;
    },
    close: () => client.close(),
  };
}

function transportOf(config: UpstreamConfig): Transport {
  if ('transport' in config) return config.transport;
  if ('url' in config) return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers ?? {} }, fetch: upstreamFetch });
  return new StdioClientTransport({
    command: config.command,
    args: config.args ?? [],
    // The SDK's safe default environment (PATH, HOME...), not the gateway's secrets, plus what the operator names.
    env: { ...getDefaultEnvironment(), ...(config.env ?? {}) },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    // The upstream's log is not the gateway's to relay (a stdio gateway's stdout is its MCP channel).
    stderr: 'ignore',
  });
}
