import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens on a free loopback port; `close` also ends kept-alive connections, so tests end promptly. */
export async function listenOnLoopback(server: Server): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One JSON answer with its length, and the request-id header the provider's clients read. */
export function sendJson(res: ServerResponse, status: number, body: unknown, requestId: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...requestId });
  res.end(text);
}
