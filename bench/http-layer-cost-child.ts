/**
 * Child process of bench/http-layer-cost.ts: servers on 127.0.0.1, each one layer
 * more than the one before, all answering POSTs with the /proposals body. IPC: sends
 * `{ ports }`; answers `cpu` with process.cpuUsage(); exits on `stop`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { ProposalsBody } from '@countersign/core/wire';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { pino } from 'pino';
import { createApp } from '../packages/server/src/app/create-app.ts';
import type { AppEnv } from '../packages/server/src/app/env.ts';
import { resolveTuning } from '../packages/server/src/app/options.ts';
import type { Services } from '../packages/server/src/app/services.ts';
import { Authenticator } from '../packages/server/src/auth/authenticator.ts';
import { requireAgent } from '../packages/server/src/auth/require-identity.ts';
import { Sessions } from '../packages/server/src/auth/sessions.ts';
import { createThrottles } from '../packages/server/src/auth/throttles.ts';
import { bodyLimit } from '../packages/server/src/http/body-limit.ts';
import { readJsonBody } from '../packages/server/src/http/read-json.ts';
import { jsonResponse, securityHeaders } from '../packages/server/src/http/security-headers.ts';
import { validate } from '../packages/server/src/http/validate.ts';
import { requestLog } from '../packages/server/src/ops/request-log.ts';
import { allowTransferMemoryGate } from './allow-transfer-gate.ts';
import { BENCH_AGENT_TOKEN, } from './http-flows.ts';

const CANNED = { outcomes: [{ status: 'allowed', proposalId: '01a2117b-a363-770c-b9c5-5b2c28db27d4', callId: 'c', verdict: 'allow' }] };
const LIMITS = { maxBytes: 1 << 20, maxDepth: 67 };
const secret = randomBytes(32).toString('hex');
const auth = { agents: [{ name: 'bench-agent', token: BENCH_AGENT_TOKEN }], approvers: [], sessionSecret: secret };

function withMiddleware(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requestLog(pino({ level: 'silent' })));
  app.use('*', securityHeaders());
  app.use('*', bodyLimit(LIMITS.maxBytes));
  return app;
}

// 1. bare: parse and echo (the HTTP rows' baseline).
const bare = new Hono();
bare.post('/p', async (c) => c.json({ echo: await c.req.json() }));
// 2. + the app's middleware, strict JSON intake, zod and jsonResponse; a canned answer.
const intake = withMiddleware();
intake.post('/p', async (c) => {
  validate(ProposalsBody, await readJsonBody(c, LIMITS));
  return jsonResponse(c, CANNED);
});
// 3. + bearer authentication (requireAgent: throttle check, token digest, constant-time compare).
const services = {
  gate: { now: () => Date.now() },
  throttles: createThrottles(resolveTuning(undefined)),
  authenticator: new Authenticator(auth, new Sessions(secret)),
  publicOrigin: undefined,
} as unknown as Services;
const authed = withMiddleware();
authed.post('/p', requireAgent(services), async (c) => {
  validate(ProposalsBody, await readJsonBody(c, LIMITS));
  return jsonResponse(c, CANNED);
});
// 4. + the gate's propose (its own in-memory gate) and the real outcomes, outside the app.
const bareGate = allowTransferMemoryGate();
const gated = withMiddleware();
gated.post('/p', requireAgent(services), async (c) => {
  const body = validate(ProposalsBody, await readJsonBody(c, LIMITS));
  const proposed = await bareGate.proposeResponse(body, { id: 'bench-agent' });
  return jsonResponse(c, { outcomes: proposed.map((outcome, i) => ({ ...outcome, callId: body.toolCalls[i]!.id })) });
});
// 5. the whole app's POST /proposals over an in-memory gate (no durability).
const gate = allowTransferMemoryGate();
const full = createApp({ gate, auth }).app;


function listen(app: { fetch: Hono['fetch'] }): Promise<number> {
  const server = createAdaptorServer({ fetch: app.fetch, hostname: '127.0.0.1' }) as Server;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

// 0. the bare echo on plain node:http (no Hono, no adapter): what the framework itself costs.
const plain = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const text = JSON.stringify({ echo: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(text);
  });
});
const plainPort = await new Promise<number>((resolve) => plain.listen(0, '127.0.0.1', () => resolve((plain.address() as { port: number }).port)));

const ports = { node: plainPort, bare: await listen(bare), intake: await listen(intake), auth: await listen(authed), gate: await listen(gated), full: await listen(full) };
process.send!({ ports });
process.on('message', (message) => {
  if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
  if (message === 'stop') process.exit(0);
});
