/**
 * Child process of the MCP rows: the upstream MCP server, written for the bench. The 1.x
 * SDK's `McpServer` with one trivial tool, `echo` (allowed by the gateway's policy), over
 * Streamable HTTP on 127.0.0.1 in session mode, as the reference servers on npm serve it.
 * Both the direct client and the gateway call this same process.
 *
 * IPC: sends `{ ready, url }` (or `{ failed }`); answers `cpu` with process.cpuUsage(); exits on `stop`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { serveChildIpc } from './mcp-child-ipc.ts';
import { echoServer } from './mcp-echo-server.ts';

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function main(): Promise<void> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      const sessionId = req.headers['mcp-session-id'];
      const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
      if (known !== undefined) return known.handleRequest(req, res, body);
      if (!isInitializeRequest(body)) {
        res.writeHead(400).end('a session starts with an initialize request');
        return;
      }
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, onsessioninitialized: (id) => void sessions.set(id, transport) });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await echoServer().connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  serveChildIpc({ url }, async () => {
    await Promise.allSettled([...sessions.values()].map((t) => t.close()));
    http.closeAllConnections();
    http.close();
  });
}

main().catch((error: unknown) => {
  process.send?.({ failed: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
