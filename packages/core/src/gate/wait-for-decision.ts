import type { Agent } from './agent.ts';
import type { ApprovalService } from './approvals.ts';
import type { GateDeps } from './config.ts';
import type { WaitOutcome } from './port.ts';
import { errorMessage } from './propose.ts';

const POLL_MS = 100;
/** Longest wait one call may ask for; a caller wanting longer calls again. */
const MAX_WAIT_MS = 10 * 60_000;
const DEFAULT_WAIT_MS = 30_000;

/**
 * Waits until the request is no longer pending (decided, revoked, consumed or expired)
 * or `timeoutMs`/`signal` ends the wait, by polling the ledger. Only the agent that owns
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
  try {
    for (;;) {
      const outcome = await readOutcome(deps, approvals, agent, requestId);
      if (!outcome.ok || outcome.status !== 'pending') return outcome;
      const left = deadline - Date.now();
      if (left <= 0 || options.signal?.aborted === true) return outcome;
      await sleep(Math.min(POLL_MS, left), options.signal);
    }
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: errorMessage(error) };
  }
}

async function readOutcome(deps: GateDeps, approvals: ApprovalService, agent: Agent, requestId: string): Promise<WaitOutcome> {
  const view = typeof requestId === 'string' ? await approvals.agentView(agent, requestId) : undefined;
  if (view === undefined) return { ok: false, reason: 'not_found', message: 'no such approval request' };
  // Approve-with-edits closes the original with a deny that links the edited call.
  const edit = view.request.decisions.find((d) => d.editedProposalId !== undefined);
  if (view.status === 'denied' && edit?.editedProposalId !== undefined) {
    // The edited call is recorded in the same run, so it is this agent's too.
    const edited = await deps.ledger.findApprovalRequestByProposal(edit.editedProposalId);
    return { ok: true, requestId, status: 'edited', editedProposalId: edit.editedProposalId, editedRequestId: edited?.requestId };
  }
  return { ok: true, requestId, status: view.status };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
