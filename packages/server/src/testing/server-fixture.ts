import { type GateFixtureOptions, makeGateFixture } from '@countersign/core/testing';
import { type AuthConfig, createApp, type ServerOptions } from '../app/create-app.ts';

export const AGENT_TOKEN = 'agent-token-aaaaaaaaaaaaaaaa';
/** A second agent runtime on the same server: it must see nothing of the first one's runs. */
export const RIVAL_TOKEN = 'rival-token-rrrrrrrrrrrrrrrr';
/** A third agent, limited to principals matching `team:*` and the exact `user:7`. */
export const SCOPED_TOKEN = 'scoped-token-ssssssssssssssss';
export const FIONA_TOKEN = 'fiona-token-ffffffffffffffff';
export const OSCAR_TOKEN = 'oscar-token-oooooooooooooooo';
export const FIONA_PASSWORD = 'correct horse battery staple';
export const PROXY_SECRET = 'proxy-shared-secret-pppppppppppp';
export const ORIGIN = 'http://countersign.test';

export const TEST_AUTH: AuthConfig = {
  agents: [
    { name: 'runtime', token: AGENT_TOKEN },
    { name: 'rival', token: RIVAL_TOKEN },
    { name: 'scoped', token: SCOPED_TOKEN, principals: ['team:*', 'user:7'] },
  ],
  approvers: [
    // fiona holds the finance role the fixture policy requires for large transfers.
    { id: 'fiona', roles: ['finance'], password: FIONA_PASSWORD, token: FIONA_TOKEN },
    // oscar is a real approver, but not for transfers.
    { id: 'oscar', roles: ['ops'], password: 'oscar-password', token: OSCAR_TOKEN },
  ],
  trustedProxy: { userHeader: 'X-Auth-User', rolesHeader: 'X-Auth-Roles', sharedSecretHeader: 'X-Proxy-Secret', sharedSecret: PROXY_SECRET },
  sessionSecret: 'session-secret-for-tests-0123456789abcdef',
};

type Body = unknown;

/**
 * A gate fixture (memory stores, demo tools, manual clock) behind a server, with
 * helpers that call it through `app.request` (no network).
 */
export function makeServerFixture(overrides: Partial<Omit<ServerOptions, 'gate'>> = {}, gateOptions: GateFixtureOptions = {}) {
  const gate = makeGateFixture(gateOptions);
  const { app, close } = createApp({
    gate: gate.gate,
    auth: TEST_AUTH,
    publicOrigin: ORIGIN,
    tuning: { pollIntervalMs: 40, heartbeatMs: 150 },
    ...overrides,
  });

  const send = (method: string, path: string, token: string | undefined, body?: Body, headers: Record<string, string> = {}) =>
    app.request(`${ORIGIN}${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  const agent = (method: string, path: string, body?: Body) => send(method, path, AGENT_TOKEN, body);
  const rival = (method: string, path: string, body?: Body) => send(method, path, RIVAL_TOKEN, body);
  const scoped = (method: string, path: string, body?: Body) => send(method, path, SCOPED_TOKEN, body);
  const fiona = (method: string, path: string, body?: Body) => send(method, path, FIONA_TOKEN, body);
  const oscar = (method: string, path: string, body?: Body) => send(method, path, OSCAR_TOKEN, body);

  /** The proposals body an agent runtime sends for one model response. */
  const proposalBody = (toolCalls: Array<{ id: string; name: string; arguments: unknown; context?: string }>, runId = 'run-1') => ({
    runId,
    sessionId: 'session-1',
    principal: 'user:42',
    responseRef: 'resp-1',
    toolCalls,
  });

  /** Proposes one transfer that needs approval and returns its request id. */
  async function proposeTransfer(args: unknown = { amount: 500, to: 'alice' }, callId = 'call-1') {
    const res = await agent('POST', '/api/v1/proposals', proposalBody([{ id: callId, name: 'transfer', arguments: args }]));
    const json = (await res.json()) as { outcomes: Array<{ status: string; requestId?: string; argsDigest?: string; proposalId?: string }> };
    const outcome = json.outcomes[0];
    if (outcome?.status !== 'approval_required' || outcome.requestId === undefined) {
      throw new Error(`expected approval_required, got ${JSON.stringify(json)}`);
    }
    return { requestId: outcome.requestId, argsDigest: outcome.argsDigest!, callId, proposalId: outcome.proposalId! };
  }

  /** The dispatch body an honest runtime sends for a call of run-1: its proposal id, with the ids as cross-checks. */
  const dispatchBody = async (callId: string, token?: string) => ({
    proposalId: (await gate.ledger.findProposalByCall('run-1', callId))?.proposalId ?? 'never-proposed',
    runId: 'run-1',
    callId,
    sessionId: 'session-1',
    principal: 'user:42',
    ...(token === undefined ? {} : { token }),
  });

  /**
   * Another replica: a gate on the same stores with its own in-memory event bus, so
   * this server hears of its decisions only by re-reading the store.
   */
  const otherReplica = () => makeGateFixture({ ledger: gate.ledger, audit: gate.audit, keyring: gate.keyring }).gate;

  return { ...gate, app, close, otherReplica, send, agent, rival, scoped, fiona, oscar, proposalBody, proposeTransfer, dispatchBody };
}

export type ServerFixture = ReturnType<typeof makeServerFixture>;
