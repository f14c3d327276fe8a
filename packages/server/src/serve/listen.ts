import type { Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';
import { ServeError } from './serve-error.ts';

/** Binds `server` and resolves with the actual port (useful with port 0), or fails with `listen_failed`. */
export function listen(server: NetServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      const why = error.code === 'EADDRINUSE' ? `port ${port} is already in use` : error.message;
      reject(new ServeError('listen_failed', `cannot listen on ${host}:${port}: ${why}`, { cause: error }));
    };
    const onListening = () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Fails with `listen_failed` when `host:port` cannot be bound right now, before `serve`
 * writes master.key, credentials.env or a database: a start that cannot listen leaves
 * nothing behind. Port 0 always binds. Another process may still take the port between
 * this probe and the real listen; that start then fails as before, having created its files.
 */
export async function checkCanListen(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await listen(probe, port, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/**
 * Stops accepting connections and waits for open requests; after `graceMs`,
 * connections still open (a stuck client, a slow stream) are cut.
 */
export function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The URL a local browser or agent uses for a server bound to `host`. */
export function localUrl(host: string, port: number): string {
  // A wildcard bind is reachable on loopback; print that rather than an address no client can dial.
  const dialable = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${dialable.includes(':') ? `[${dialable}]` : dialable}:${port}`;
}

/** Whether `host` only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
