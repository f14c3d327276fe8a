import { type InProcessServe, serveInProcess } from '../../testing/serve-in-process.ts';
import { dropSchema, randomSchema, startTcpProxy, type TcpProxy, TEST_PG_URL } from './postgres.ts';

export interface ServeBehindProxy {
  server: InProcessServe;
  /** Between serve and PostgreSQL: `cut('refuse' | 'stall')` makes the database unreachable, `restore()` brings it back. */
  proxy: TcpProxy;
  /** Stops serve and the proxy and drops the test schema. */
  close(): Promise<void>;
}

/** `countersign serve --database-url …` on a fresh schema, reaching PostgreSQL through a TCP proxy a test can cut. */
export async function serveBehindProxy(args: string[], options: { cwd: string; env: Record<string, string> }): Promise<ServeBehindProxy> {
  const schema = randomSchema();
  const target = new URL(TEST_PG_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const viaProxy = new URL(TEST_PG_URL);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const server = await serveInProcess([...args, '--database-url', viaProxy.href, '--pg-schema', schema], options);
  return {
    server,
    proxy,
    async close() {
      await proxy.restore().catch(() => undefined);
      await server.stop();
      await proxy.close();
      await dropSchema(schema);
    },
  };
}
