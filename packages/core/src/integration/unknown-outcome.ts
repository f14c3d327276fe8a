import type { CallState, GatePort } from '../gate/index.ts';
import type { GateStep } from './gate-step.ts';
import type { GuardedRefusal } from './refusal.ts';

/**
 * An authorize the gate answered `outcome_unknown`: its consume failed in a way that may
 * have committed, so the call's approval may be spent. This is not a refusal (the call may
 * have been authorized, and may be running or have run elsewhere), and it is never a
 * grant (at most once). Nothing runs here, now or on a retry; `callState` is what the
 * ledger read afterwards says (undefined when it could not be read), and `refusal` is what
 * the framework shows the model, with reason `outcome_unknown`, so it does not retry.
 */
export interface UnknownOutcome {
  kind: 'unknown';
  proposalId: string;
  callState: Exclude<CallState, 'proposed'> | undefined;
  refusal: GuardedRefusal;
}

/** What a `store_unavailable` refusal becomes when the ledger shows nothing was consumed. */
export interface NothingConsumed {
  kind: 'refused';
  refusal: GuardedRefusal;
}

/**
 * Settles an `outcome_unknown` answer by reading the call (`port.callStatus`): still
 * `proposed` means the consume did not commit (the gate's attempt is over), which is an
 * ordinary `store_unavailable` refusal (nothing spent, safe to ask again); any other state,
 * or no answer, is the distinct `unknown` outcome. `step` sends the read (see `GateStep`).
 * Never throws.
 */
export async function settleUnknownOutcome(port: GatePort, proposalId: string, gateMessage: string, step?: GateStep): Promise<UnknownOutcome | NothingConsumed> {
  let callState: CallState | undefined;
  try {
    const read = () => port.callStatus(proposalId);
    const status = await (step === undefined ? read() : step('call-status', read));
    callState = status.ok ? status.call.state : undefined;
  } catch {
    callState = undefined;
  }
  if (callState === 'proposed') {
    return { kind: 'refused', refusal: { status: 'not_approved', reason: 'store_unavailable', message: `the store failed and nothing was consumed: ${gateMessage}`, proposalId } };
  }
  const where = callState === undefined ? 'its state could not be read' : `the ledger reads it ${callState}`;
  return {
    kind: 'unknown',
    proposalId,
    callState,
    refusal: {
      status: 'not_approved',
      reason: 'outcome_unknown',
      message: `call ${proposalId} may already have been authorized (${where}); it does not run again here: read its status, do not retry it`,
      proposalId,
    },
  };
}
