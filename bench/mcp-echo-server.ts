import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ECHO_TOOL } from './mcp-child-ipc.ts';

/** The bench's upstream MCP server (1.x SDK): one trivial tool, `echo`, allowed by the gateway's bench policy. */
export function echoServer(): McpServer {
  const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
  server.registerTool(ECHO_TOOL, { description: 'Answers with the text it was given.', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}
