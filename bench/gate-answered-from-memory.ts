import { MemoryGateEvents } from '@countersign/core/events';
import type { Gate } from '@countersign/core/gate';

const ARGS_DIGEST = 'a'.repeat(64);
const RESULT_DIGEST = 'b'.repeat(64);

/**
 * `gate` with its four hot operations (`proposeResponse`, `dispatch`, `authorize`,
 * `complete`) answered from memory with outcomes of the real shape: no policy,
 * canonicalization, ledger, audit chain, store or tool, and events of its own (nothing
 * the app subscribes to reaches the real gate's). Everything else is the gate's own
 * (clock, limits), so an app built on it (createApp) runs every layer AROUND the
 * gate as the real server does: HTTP, middleware, authentication, the strict JSON read,
 * validation, the answer. The HTTP rows' `around` server: its server CPU per round trip
 * is what a round trip costs besides the gate and its store. A measuring stick only.
 */
export function gateAnsweredFromMemory(gate: Gate): Gate {
  const answers: Partial<Record<keyof Gate, unknown>> = {
    events: new MemoryGateEvents(),
    proposeResponse: async (response: Parameters<Gate['proposeResponse']>[0]) =>
      response.toolCalls.map((call) => ({ status: 'allowed', proposalId: `p-${call.id}`, callId: call.id, argsDigest: ARGS_DIGEST })),
    dispatch: async (request: Parameters<Gate['dispatch']>[0]) => {
      const proposalId = request.proposalId ?? 'p-unknown';
      return { status: 'executed', proposalId, callId: proposalId.slice(2), toolName: 'transfer', result: { ok: true }, resultDigest: RESULT_DIGEST };
    },
    authorize: async (request: Parameters<Gate['authorize']>[0]) => {
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
      return { status: 'authorized', grant };
    },
    complete: async (grant: Parameters<Gate['complete']>[0]) => ({ ok: true, proposalId: grant.proposalId, resultDigest: RESULT_DIGEST, duplicate: false }),
  };
  return new Proxy(gate, {
    get(target, property) {
      if (typeof property === 'string' && property in answers) return answers[property as keyof Gate];
      // The gate's own getters and methods use its private fields: read and call them on the gate itself.
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
