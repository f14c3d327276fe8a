import { afterEach } from 'vitest';
import { type ServerType, serve } from '@hono/node-server';
import { makeServerFixture, type ServerFixture } from '@countersign/server/test-kit';

/**
 * The server fixture's app on a real loopback port, so a CLI command talks HTTP to it
 * like to any running service. `close` stops both.
 */
export async function liveFixture(...options: Parameters<typeof makeServerFixture>): Promise<{ f: ServerFixture; url: string; close(): Promise<void> }> {
  const f = makeServerFixture(...options);
  let server: ServerType | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: f.app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port));
  });
  return {
    f,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
      await f.close();
    },
  };
}

/**
 * For a test file whose tests each start their own live server: `start()` returns its URL,
 * `fixture()` the fixture behind it, and the server is closed after each test.
 */
export function liveFixturePerTest(): { start(): Promise<string>; fixture(): ServerFixture } {
  let running: Awaited<ReturnType<typeof liveFixture>> | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return {
    async start() {
      running = await liveFixture();
      return running.url;
    },
    fixture() {
      if (running === undefined) throw new Error('start() the live server first');
      return running.f;
    },
  };
}
