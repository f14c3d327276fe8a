import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { GateFixtureOptions } from '@countersign/core/testing';
import type { ServerOptions } from '@countersign/server';
import { closeServer, listen } from '../../server/src/serve/listen.ts';
import { AGENT_TOKEN, makeServerFixture, RIVAL_TOKEN } from '../../server/src/testing/server-fixture.ts';
import { type ClientOptions, createClient } from './create-client.ts';

/** The server fixture listening on a loopback port, and clients for its agents (fast retries). */
export async function loopbackServer(overrides: Partial<Omit<ServerOptions, 'gate'>> = {}, gateOptions: GateFixtureOptions = {}) {
  const fixture = makeServerFixture(overrides, gateOptions);
  const server = createAdaptorServer({ fetch: fixture.app.fetch }) as Server;
  const port = await listen(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const client = (options: Partial<ClientOptions> = {}) => createClient({ baseUrl: url, token: AGENT_TOKEN, retryDelayMs: 5, ...options });
  return {
    fixture,
    url,
    client,
    rivalClient: () => client({ token: RIVAL_TOKEN }),
    async close() {
      await fixture.close();
      await closeServer(server, 100);
    },
  };
}

export type Loopback = Awaited<ReturnType<typeof loopbackServer>>;

/** A loopback HTTP server answering every request with `handler` (a broken or hostile server). */
export async function fakeServer(handler: (request: Request) => Response | Promise<Response>) {
  const server = createAdaptorServer({ fetch: handler }) as Server;
  const port = await listen(server, 0, '127.0.0.1');
  return { url: `http://127.0.0.1:${port}`, close: () => closeServer(server, 50) };
}

/** One model response with one call, as the fixture's agent sends it. */
export function response(toolCalls: Array<{ id: string; name: string; arguments: unknown }>, runId = 'run-1') {
  return { runId, sessionId: 'session-1', principal: 'user:42', responseRef: 'resp-1', toolCalls };
}
