import { randomBytes } from 'node:crypto';
import type { Gate } from '@countersign/core';
import { type ClientOptions, type CountersignClient, createClient } from '@countersign/client';
import { createApp } from '../app/create-app.ts';
import type { AuthConfig, ServerTuning } from '../app/options.ts';

/** Anything that answers a `Request`, like a Hono app's `fetch`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** The origin linked clients use; nothing listens there, requests never leave the process. */
export const LINKED_ORIGIN = 'http://countersign.linked';

/**
 * A client whose requests go straight into `handler` (no sockets), like the MCP SDK's
 * in-memory transport: the whole HTTP layer (routing, auth, body limits, schemas) runs,
 * only the network is skipped.
 */
export function linkedClient(handler: FetchHandler, options: Omit<ClientOptions, 'baseUrl' | 'fetch'>): CountersignClient {
  return createClient({
    ...options,
    baseUrl: LINKED_ORIGIN,
    fetch: async (input, init) => handler(new Request(input, init)),
  });
}

export interface LinkedPairOptions {
  gate: Gate;
  /** Default: one agent `linked-agent` with a random token and no approvers. */
  auth?: AuthConfig | undefined;
  /** The token the client sends. Default: the first agent's. */
  token?: string | undefined;
  tuning?: ServerTuning | undefined;
  client?: Omit<ClientOptions, 'baseUrl' | 'fetch' | 'token'> | undefined;
}

export interface LinkedPair {
  client: CountersignClient;
  /** The server side: `app.fetch` answers the client's requests. */
  app: { fetch: FetchHandler };
  auth: AuthConfig;
  close(): Promise<void>;
}

/** A `@countersign/server` app around `gate`, and a client linked to it in memory. */
export function linkedPair(options: LinkedPairOptions): LinkedPair {
  const auth = options.auth ?? { agents: [{ name: 'linked-agent', token: `linked-${randomBytes(16).toString('hex')}` }], approvers: [] };
  const token = options.token ?? auth.agents[0]?.token;
  if (token === undefined) throw new Error('linkedPair: the auth config has no agent, pass `token`');
  const { app, close } = createApp({ gate: options.gate, auth, publicOrigin: LINKED_ORIGIN, ...(options.tuning === undefined ? {} : { tuning: options.tuning }) });
  const handler: FetchHandler = (request) => app.fetch(request);
  return { client: linkedClient(handler, { ...options.client, token }), app: { fetch: handler }, auth, close };
}
