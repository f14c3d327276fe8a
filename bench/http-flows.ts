import { Agent, request } from 'node:http';
import { ARGUMENT_CASES } from './arguments.ts';

export const BENCH_AGENT_TOKEN = 'bench-agent-token-0123456789abcdef';
export const BENCH_TOOL = 'transfer';

/**
 * A keep-alive JSON client on node:http, one socket per concurrent client: cheaper per
 * request than fetch (undici's WHATWG layer), so the load generator stays small beside
 * the servers. Its own cost shows in the bare-server rows.
 */
export class JsonClient {
  readonly #agent: Agent;
  readonly #port: number;

  constructor(port: number, sockets: number) {
    this.#port = port;
    this.#agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  post(path: string, body: unknown, token?: string): Promise<unknown> {
    const text = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: this.#port,
          method: 'POST',
          path,
          agent: this.#agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const answer = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new Error(`${path}: HTTP ${res.statusCode} ${answer.slice(0, 300)}`));
            else resolve(JSON.parse(answer));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** One round trip of a flow: the POSTs of one tool call, in order. */
export type Flow = (client: JsonClient, callId: string, runId: string) => Promise<void>;

const ARGS = ARGUMENT_CASES[0]!.args;

function proposalsBody(callId: string, runId: string) {
  return { runId, sessionId: 'session-bench', principal: 'user:bench', toolCalls: [{ id: callId, name: BENCH_TOOL, arguments: ARGS }] };
}

async function propose(client: JsonClient, callId: string, runId: string): Promise<string> {
  const answer = (await client.post('/api/v1/proposals', proposalsBody(callId, runId), BENCH_AGENT_TOKEN)) as {
    outcomes: Array<{ status: string; proposalId?: string }>;
  };
  const outcome = answer.outcomes[0];
  if (outcome?.status !== 'allowed' || outcome.proposalId === undefined) throw new Error(`propose gave ${JSON.stringify(outcome)}`);
  return outcome.proposalId;
}

/** propose → authorize → (the agent runs the tool) → complete. */
export const proposeAuthorizeComplete: Flow = async (client, callId, runId) => {
  const proposalId = await propose(client, callId, runId);
  const authorized = (await client.post('/api/v1/authorize', { proposalId }, BENCH_AGENT_TOKEN)) as { status: string; grant?: unknown };
  if (authorized.status !== 'authorized') throw new Error(`authorize gave ${JSON.stringify(authorized)}`);
  const completed = (await client.post(
    '/api/v1/complete',
    { grant: authorized.grant, completion: { status: 'succeeded', result: { ok: true } } },
    BENCH_AGENT_TOKEN,
  )) as { ok: boolean };
  if (completed.ok !== true) throw new Error(`complete gave ${JSON.stringify(completed)}`);
};

/** propose-and-authorize in one step (`authorizeAllowed`: the grant comes with the proposal) → (the agent runs the tool) → complete. */
export const proposeAuthorizedComplete: Flow = async (client, callId, runId) => {
  const answer = (await client.post('/api/v1/proposals', { ...proposalsBody(callId, runId), authorizeAllowed: true }, BENCH_AGENT_TOKEN)) as {
    outcomes: Array<{ status: string; grant?: unknown }>;
  };
  const outcome = answer.outcomes[0];
  if (outcome?.status !== 'allowed' || outcome.grant === undefined) throw new Error(`propose-and-authorize gave ${JSON.stringify(outcome)}`);
  const completed = (await client.post('/api/v1/complete', { grant: outcome.grant, completion: { status: 'succeeded', result: { ok: true } } }, BENCH_AGENT_TOKEN)) as {
    ok: boolean;
  };
  if (completed.ok !== true) throw new Error(`complete gave ${JSON.stringify(completed)}`);
};

/** propose → dispatch (the gate runs the tool). */
export const proposeDispatch: Flow = async (client, callId, runId) => {
  const proposalId = await propose(client, callId, runId);
  const dispatched = (await client.post('/api/v1/dispatch', { proposalId }, BENCH_AGENT_TOKEN)) as { status: string };
  if (dispatched.status !== 'executed') throw new Error(`dispatch gave ${JSON.stringify(dispatched)}`);
};

// What the bare server is sent: bodies of the sizes the real flow sends (the proposals
// body, an authorize body, a complete body carrying a grant of typical size).
const GRANT_LIKE = {
  v: 1,
  proposalId: 'p'.repeat(36),
  runId: 'run-bench-0',
  sessionId: 'session-bench',
  principal: 'user:bench',
  agent: 'bench-agent',
  callId: 'call-0-000000',
  toolName: BENCH_TOOL,
  definitionDigest: 'd'.repeat(64),
  canonicalArgs: JSON.stringify(ARGS),
  argsDigest: 'a'.repeat(64),
  authorizedAt: 1_780_000_000_000,
};

/** The same number of JSON POSTs as `proposeAuthorizeComplete`, to a server that only parses and echoes. */
export const bareThree: Flow = async (client, callId, runId) => {
  await client.post('/bare/propose', proposalsBody(callId, runId));
  await client.post('/bare/authorize', { proposalId: 'p'.repeat(36) });
  await client.post('/bare/complete', { grant: GRANT_LIKE, completion: { status: 'succeeded', result: { ok: true } } });
};

/** The same number of JSON POSTs as `proposeDispatch`. */
export const bareTwo: Flow = async (client, callId, runId) => {
  await client.post('/bare/propose', proposalsBody(callId, runId));
  await client.post('/bare/dispatch', { proposalId: 'p'.repeat(36) });
};

/** `proposeAuthorizeComplete` against the durable floor (http-floor-server.ts): the same bodies, the same three POSTs. */
export const floorThree: Flow = async (client, callId, runId) => {
  const proposalId = await floorPropose(client, callId, runId);
  const authorized = (await client.post('/floor/authorize', { proposalId })) as { status: string; grant: { proposalId: string } };
  if (authorized.status !== 'authorized') throw new Error(`floor authorize gave ${JSON.stringify(authorized)}`);
  const completed = (await client.post('/floor/complete', {
    grant: { ...GRANT_LIKE, proposalId: authorized.grant.proposalId },
    completion: { status: 'succeeded', result: { ok: true } },
  })) as { ok: boolean };
  if (completed.ok !== true) throw new Error(`floor complete gave ${JSON.stringify(completed)}`);
};

/** `proposeAuthorizedComplete` against the durable floor: the proposal recorded consumed in one commit, then the result. */
export const floorAuthorizedTwo: Flow = async (client, callId, runId) => {
  const answer = (await client.post('/floor/propose-authorized', proposalsBody(callId, runId))) as { outcomes: Array<{ grant: { proposalId: string } }> };
  const completed = (await client.post('/floor/complete', {
    grant: { ...GRANT_LIKE, proposalId: answer.outcomes[0]!.grant.proposalId },
    completion: { status: 'succeeded', result: { ok: true } },
  })) as { ok: boolean };
  if (completed.ok !== true) throw new Error(`floor complete gave ${JSON.stringify(completed)}`);
};

/** `proposeDispatch` against the durable floor. */
export const floorTwo: Flow = async (client, callId, runId) => {
  const proposalId = await floorPropose(client, callId, runId);
  const dispatched = (await client.post('/floor/dispatch', { proposalId })) as { status: string };
  if (dispatched.status !== 'executed') throw new Error(`floor dispatch gave ${JSON.stringify(dispatched)}`);
};

async function floorPropose(client: JsonClient, callId: string, runId: string): Promise<string> {
  const answer = (await client.post('/floor/propose', proposalsBody(callId, runId))) as { outcomes: Array<{ proposalId: string }> };
  return answer.outcomes[0]!.proposalId;
}
