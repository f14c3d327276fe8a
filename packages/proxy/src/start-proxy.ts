import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createProxy, type ProxyOptions } from './create-proxy.ts';

export interface StartProxyOptions extends ProxyOptions {
  /** Default 127.0.0.1. */
  host?: string | undefined;
  /** Default 0 (a free port). */
  port?: number | undefined;
}

export interface RunningProxy {
  /** The base URL an OpenAI client uses (`…/v1`). */
  readonly baseUrl: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Listens with the proxy; its `baseUrl` is what an OpenAI client is pointed at. */
export async function startProxy(options: StartProxyOptions): Promise<RunningProxy> {
  const host = options.host ?? '127.0.0.1';
  const server = createAdaptorServer({ fetch: createProxy(options).fetch, hostname: host }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    baseUrl: `http://${shown}:${port}/v1`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
