/**
 * Child process of the MCP rows: the floor of any HTTP proxy on this machine. A byte relay
 * that forwards each request to the upstream over a kept-alive agent and streams the answer
 * back, headers and all: no MCP parsing, no policy, no ledger, no audit. What it adds over
 * direct calls is what one extra process and HTTP hop cost here, which no gateway can avoid;
 * the gateway's rows are read against it (labelled as a baseline, not the same work).
 *
 * IPC: sends `{ ready, url }` (or `{ failed }`); answers `cpu` with process.cpuUsage(); exits on `stop`.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveChildIpc } from './mcp-child-ipc.ts';

async function main(): Promise<void> {
  const upstream = new URL(process.argv[2]!);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const http = createServer((req, res) => {
    const headers = { ...req.headers, host: upstream.host };
    const forwarded = request({ host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: req.method, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forwarded.setNoDelay(true);
    forwarded.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502).end(String(error));
      else res.destroy();
    });
    req.pipe(forwarded);
  });
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  serveChildIpc({ url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` }, async () => {
    http.closeAllConnections();
    http.close();
    agent.destroy();
  });
}

main().catch((error: unknown) => {
  process.send?.({ failed: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
