import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A local HTTP receiver on 127.0.0.1 that answers with the statuses given, in order (then 200). */
export async function startWebhookReceiver(statuses: number[] = []) {
  const received: ReceivedDelivery[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const status = statuses[received.length] ?? 200;
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
      for (const w of waiters.filter((w) => received.length >= w.count)) w.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/countersign`,
    received,
    /** Resolves once `count` deliveries (attempts) have arrived. */
    waitFor: (count: number, timeoutMs = 5000) =>
      new Promise<void>((resolve, reject) => {
        if (received.length >= count) return resolve();
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} deliveries arrived`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
