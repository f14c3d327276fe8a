import { CountersignCallRefusal, guardCall, type GuardedRefusal, runGranted } from '@countersign/core/integration';
import { getTransferMessage, Handoff, handoff } from '@openai/agents';
import type { CountersignGuard } from './guard.ts';
import type { CountersignDenial } from './refusal.ts';
import type { AnyAgent } from './sdk-types.ts';

/**
 * Thrown from a guarded handoff when Countersign refuses the handoff call: the SDK has
 * no tool output for a handoff, so the run rejects with this typed error. Nothing
 * changed hands.
 */
export class CountersignHandoffRefusal extends CountersignCallRefusal<CountersignDenial> {
  constructor(denial: CountersignDenial) {
    super(denial);
    this.name = 'CountersignHandoffRefusal';
  }
}

/**
 * A handoff the model may call through Countersign: the handoff call is recorded with
 * the response (the wrapped model proposes it like any call), authorized by policy
 * (register its definition, `handoffDefinitions`, and give it a rule) and completed
 * with the transfer message the model reads, so the relay check of the next request
 * passes. Guard the target agent's model and tools with the same `countersign(...)`:
 * its calls are then proposed and authorized in the same run.
 *
 * A handoff cannot interrupt the run: one that needs approval waits up to the guard's
 * `waitMs`, then is refused (`approval_pending`).
 */
export function guardHandoff(target: AnyAgent | Handoff, guard: CountersignGuard): Handoff {
  const base = target instanceof Handoff ? target : handoff(target);
  guard.guarded.add(base.toolName);
  return base.clone({
    onInvokeHandoff: async (context, args) => {
      const refuse = (refusal: GuardedRefusal, callId = ''): never => {
        throw new CountersignHandoffRefusal(guard.refuse({ ...refusal, callId, toolName: base.toolName }));
      };
      const callId = guard.takeCall(base.toolName, args);
      if (callId === undefined) return refuse({ status: 'not_approved', reason: 'unknown_call', message: `no model response in run ${guard.context.runId} contained this ${base.toolName} call` });
      const recorded = guard.proposedOutcome(callId) ?? (await guard.index.get(guard.context.runId, callId));
      const waitMs = guard.approval === 'interrupt' ? 0 : guard.approval.waitMs;
      const step = await guardCall(guard.port, { context: guard.context, callId, toolName: base.toolName, arguments: args, recorded }, { waitMs });
      if (step.kind === 'wait') {
        return refuse({ status: 'not_approved', reason: 'approval_pending', message: `approval request ${step.requestId} has not been approved in Countersign`, proposalId: step.proposalId }, callId);
      }
      // `unknown`: the approval may be spent; shown with reason outcome_unknown (may have run, do not retry), never run.
  if (step.kind === 'refused' || step.kind === 'unknown') return refuse(step.refusal, callId);
      return runGranted(guard.port, step.grant, () => base.onInvokeHandoff(context, args), {
        // What the runner relays to the model as the handoff's output.
        resultOf: (agent) => getTransferMessage(agent),
        onCompletionFailure: (failure) => guard.completionFailures.push(failure),
      });
    },
  });
}
