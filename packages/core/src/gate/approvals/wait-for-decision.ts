import { isAboutRequest, watchEvents } from '../../events/wait-for-event.ts';
import type { Agent } from '../common/agent.ts';
import type { ApprovalService } from './index.ts';
import type { GateDeps } from '../config.ts';
import type { WaitOutcome } from '../common/port.ts';
import { errorMessage } from '../common/call-records.ts';

/**
 * How often the ledger is re-read while no event arrives: the safety net for a
 * decision made where this gate's event bus does not reach (another replica without
 * a shared bus, a missed notification). Events wake the wait at once.
 */
const FALLBACK_POLL_MS = 1000;
/** Longest wait one call may ask for; a caller wanting longer calls again. */
const MAX_WAIT_MS = 10 * 60_000;
const DEFAULT_WAIT_MS = 30_000;

/**
 * Waits until the request is no longer pending (decided, revoked, consumed or expired)
 * or `timeoutMs`/`signal` ends the wait. Woken by the gate's events about the request
 * (re-reading the ledger on each), with a slow poll as the fallback. Only the agent that owns
 * the call sees the request; for any other it is `not_found`. Never throws.
 */
export async function waitForDecision(
  deps: GateDeps,
  approvals: ApprovalService,
  agent: Agent,
  requestId: string,
  options: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined } = {},
): Promise<WaitOutcome> {
  const timeoutMs = Math.min(Math.max(0, Number.isFinite(options.timeoutMs) ? (options.timeoutMs as number) : DEFAULT_WAIT_MS), MAX_WAIT_MS);
  const deadline = Date.now() + timeoutMs;
  // Watching starts before the first read, so a decision right after a read still wakes us.
  const watch = watchEvents(deps.events, isAboutRequest(requestId));
  try {
    for (;;) {
      const outcome = await readOutcome(approvals, agent, requestId);
      if (!outcome.ok || outcome.status !== 'pending') return outcome;
      const left = deadline - Date.now();
      if (left <= 0 || options.signal?.aborted === true) return outcome;
      await watch.next(Math.min(FALLBACK_POLL_MS, left), options.signal);
    }
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: errorMessage(error) };
  } finally {
    watch.close();
  }
}

async function readOutcome(approvals: ApprovalService, agent: Agent, requestId: string): Promise<WaitOutcome> {
  const found = await approvals.agentView(agent, requestId);
  if (!found.ok) return found;
  const { view } = found;
  // Approve-with-edits closes the original as `edited`, linked to the edited call
  // (recorded in the same run, so it is this agent's too). The link is the ledger's;
  // without it there is no call to run instead, so the outcome names none.
  if (view.status === 'edited') {
    if (view.edited?.requestId === undefined) return { ok: false, reason: 'not_found', message: `approval request ${requestId} was edited, but the edited call is not named` };
    return { ok: true, requestId, status: 'edited', editedProposalId: view.edited.proposalId, editedRequestId: view.edited.requestId, editedCallId: view.edited.callId };
  }
  return { ok: true, requestId, status: view.status };
}
