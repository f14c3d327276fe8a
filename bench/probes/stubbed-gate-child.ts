/**
 * The HTTP bench's server child with the gate's hot operations answered from memory:
 * `proposeResponse`, `dispatch`, `authorize` and `complete` return canned outcomes of the
 * real ones' shape, so nothing of policy, canonicalization, ledger, audit chain, store or
 * tool runs, while everything around them (HTTP, middleware, authentication, strict JSON,
 * validation, the answer) still does. With `ab-http.ts` and
 * `AB_CHILD_B=bench/probes/stubbed-gate-child.ts`, side A is the real server and side B this
 * one, so B/A is the share of a round trip's server CPU that is NOT the gate and its store.
 * Flows `pd` and `pac`. Same argv and IPC as http-server-child.ts, which it runs.
 */
import { Gate } from '@countersign/core/gate';

const ARGS_DIGEST = 'a'.repeat(64);
const RESULT_DIGEST = 'b'.repeat(64);

Gate.prototype.proposeResponse = async (response) =>
  response.toolCalls.map((call) => ({ status: 'allowed', proposalId: `p-${call.id}`, callId: call.id, argsDigest: ARGS_DIGEST }) as const);

Gate.prototype.dispatch = async (request) => {
  const proposalId = request.proposalId ?? 'p-unknown';
  return { status: 'executed', proposalId, callId: proposalId.slice(2), toolName: 'transfer', result: { ok: true }, resultDigest: RESULT_DIGEST } as never;
};

Gate.prototype.authorize = async (request) => {
  const proposalId = request.proposalId ?? 'p-unknown';
  const grant = {
    v: 1,
    proposalId,
    runId: 'run-bench',
    sessionId: 'session-bench',
    principal: 'user:bench',
    agent: 'bench-agent',
    callId: proposalId.slice(2),
    toolName: 'transfer',
    canonicalArgs: '{"amount":1250.75,"currency":"EUR"}',
    argsDigest: ARGS_DIGEST,
    authorizedAt: 1_780_000_000_000,
  };
  return { status: 'authorized', grant } as never;
};

Gate.prototype.complete = async (grant) => ({ ok: true, proposalId: grant.proposalId, resultDigest: RESULT_DIGEST, duplicate: false }) as never;

await import('../http-server-child.ts');
