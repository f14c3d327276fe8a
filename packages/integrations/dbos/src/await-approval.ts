import type { WaitOutcome } from '@countersign/core/gate';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { IDEMPOTENT_STEP, MIN_POLL_MS, type WorkflowSettings } from './settings.ts';
import { type DecisionNotice, decisionTopic } from './topic.ts';

/** A call waiting for approval: the propose outcome's ids and the expiry fixed when the request was made. */
export interface PendingCall {
  proposalId: string;
  requestId: string;
  expiresAt: number;
}

/** The call to authorize once approved: the proposed one, or the approver's edited call. */
export interface ApprovedTarget {
  proposalId: string;
  requestId: string;
  /** Set when an approver edited the call: the edited call's own ledger id and tool. */
  edited?: { callId: string; toolName: string } | undefined;
}

export type ApprovalWait =
  | ({ status: 'approved' } & ApprovedTarget)
  | { status: 'denied' | 'revoked' | 'consumed' | 'expired'; proposalId: string; requestId: string }
  | { status: 'not_found' | 'store_unavailable' | 'edit_limit'; proposalId: string; requestId: string; message: string };

/** What one read of the request recorded: its status, and when (the step's own clock, recorded with it). */
interface DecisionRead {
  outcome: WaitOutcome;
  checkedAt: number;
  edited?: (PendingCall & { callId: string; toolName: string }) | { problem: string } | undefined;
}

// An edit of an edit is possible; a longer chain is refused rather than followed forever.
const MAX_EDIT_HOPS = 8;

/**
 * Waits durably until the call's approval request is decided. Each round reads the request from
 * Countersign in a step (recorded, so a recovered workflow replays the same reads), then
 * sleeps in `DBOS.recv` on the request's topic until a notification, the request's expiry
 * or the poll interval. Every deadline comes from a recorded step output (`expiresAt` fixed
 * at mint time, `checkedAt` read inside the step): workflow code never reads the clock.
 * A notification only wakes the wait; what it says is never read.
 */
export async function awaitApproval(settings: WorkflowSettings, pending: PendingCall): Promise<ApprovalWait> {
  let target: PendingCall & { edited?: ApprovedTarget['edited'] } = pending;
  let hops = 0;
  for (;;) {
    const current = target;
    const read = await DBOS.runStep(() => readDecision(settings, current), { name: 'countersign.decision', ...IDEMPOTENT_STEP });
    const { outcome } = read;
    const ids = { proposalId: current.proposalId, requestId: current.requestId };
    if (!outcome.ok) return { status: outcome.reason, ...ids, message: outcome.message };
    switch (outcome.status) {
      case 'approved':
        return { status: 'approved', ...ids, edited: current.edited };
      case 'pending': {
        // Never a deadline in the past: a gate whose clock lags ours still says pending for a moment.
        const wakeAt = Math.max(Math.min(current.expiresAt, read.checkedAt + settings.pollIntervalMs), read.checkedAt + MIN_POLL_MS);
        await DBOS.recv<DecisionNotice>(decisionTopic(current.requestId), { deadlineEpochMS: wakeAt });
        continue;
      }
      case 'edited': {
        const edited = read.edited;
        if (edited === undefined || 'problem' in edited) {
          return { status: 'not_found', ...ids, message: edited?.problem ?? `approval request ${current.requestId} was edited, but the edited call is not named` };
        }
        if (++hops > MAX_EDIT_HOPS) return { status: 'edit_limit', ...ids, message: `approval request ${pending.requestId} was edited too many times` };
        target = { ...edited, edited: { callId: edited.callId, toolName: edited.toolName } };
        continue;
      }
      default:
        return { status: outcome.status, ...ids };
    }
  }
}

async function readDecision(settings: WorkflowSettings, target: PendingCall): Promise<DecisionRead> {
  const outcome = await settings.port.waitForDecision(target.requestId, { timeoutMs: 0 });
  const checkedAt = Date.now();
  if (!outcome.ok || outcome.status !== 'edited') return { outcome, checkedAt };
  // The edited call's own request, with the expiry fixed when it was made.
  const status = await settings.port.callStatus(outcome.editedProposalId);
  if (!status.ok) return { outcome, checkedAt, edited: { problem: status.message } };
  const request = status.call.request;
  if (request === undefined || request.requestId !== outcome.editedRequestId) return { outcome, checkedAt, edited: { problem: 'the edited call has no matching approval request' } };
  return {
    outcome,
    checkedAt,
    edited: { proposalId: status.call.proposalId, requestId: request.requestId, expiresAt: request.expiresAt, callId: status.call.callId, toolName: status.call.toolName },
  };
}
