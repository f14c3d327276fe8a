import type { ModelResponse, ProposeOutcome, RefusalReport } from '@countersign/core/gate';
import type { Agent } from '@countersign/core/gate';
import type { RelayCheckOutcome, RelayedToolMessage, RelayGate } from '../relay-port.ts';

/** A gate double for the proxy's own tests: records what the proxy asked, answers as told. */
export function fakeGate() {
  const proposed: Array<{ agent: Agent; response: ModelResponse }> = [];
  const checked: Array<{ agent: Agent; runId: string; toolMessages: RelayedToolMessage[] }> = [];
  const reported: Array<{ agent: Agent; report: RefusalReport }> = [];
  const state = {
    proposed,
    checked,
    /** What the proxy reported it refused itself (unknown shapes). */
    reported,
    /** Answer for each proposed call; default allowed. */
    answer: (call: { id: string; name: string }): ProposeOutcome | Promise<ProposeOutcome> => ({ status: 'allowed', proposalId: `p-${call.id}`, callId: call.id, argsDigest: 'd' }),
    relay: (_messages: RelayedToolMessage[]): RelayCheckOutcome | Promise<RelayCheckOutcome> => ({ ok: true, checked: _messages.length }),
  };
  const gate: RelayGate = {
    port: (agent) => ({
      async propose(response) {
        proposed.push({ agent, response });
        const outcomes: ProposeOutcome[] = [];
        for (const call of response.toolCalls) outcomes.push(await state.answer(call));
        return outcomes;
      },
      async checkRelayed(request) {
        checked.push({ agent, ...request });
        return state.relay(request.toolMessages);
      },
      async reportRefusal(report) {
        reported.push({ agent, report });
        return { ok: true };
      },
      async recordProviderOutput() {
        return { ok: true, duplicate: false };
      },
    }),
  };
  return { gate, state };
}
