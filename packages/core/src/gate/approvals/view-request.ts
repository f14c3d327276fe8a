import { effectiveStatus } from '../../ledger/effective-status.ts';
import type { ApprovalRequest, Proposal } from '../../ledger/types.ts';
import { type Agent, isOwnedBy } from '../common/agent.ts';
import type { GateDeps } from '../config.ts';
import { type DefinitionView, definitionViewOf, reviewViewOf } from '../definitions/definition-view.ts';
import { errorMessage } from '../common/call-records.ts';
import { editedCallOf } from './edited-call.ts';
import { type Approver, mayDecide } from './eligibility.ts';
import type { DecisionView, ReadFailure, RequestView, ViewResult } from './types.ts';

const NOT_FOUND = { ok: false, reason: 'not_found', message: 'no such approval request' } as const;

/** A request and its call exactly as the ledger holds them (no eligibility filter: callers apply theirs). */
export async function viewRequest(deps: GateDeps, requestId: string): Promise<ViewResult> {
  if (typeof requestId !== 'string') return NOT_FOUND;
  try {
    // The request and its call in one read (one statement on a SQL store).
    const found = await deps.ledger.getRequestWithProposal(requestId);
    if (found === undefined) return NOT_FOUND;
    return { ok: true, view: await viewOfCall(deps, found.request, found.proposal, deps.clock()) };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
}

/**
 * The request and its call as a decision needs them, in one read: not the tool's
 * definition, a review's definitions or an edit's target, which an approver is shown
 * (`viewRequest`) but a decision does not depend on.
 */
export async function viewForDecision(deps: GateDeps, requestId: string): Promise<{ ok: true; view: DecisionView } | ReadFailure> {
  if (typeof requestId !== 'string') return NOT_FOUND;
  try {
    const found = await deps.ledger.getRequestWithProposal(requestId);
    if (found === undefined) return NOT_FOUND;
    return { ok: true, view: { request: found.request, proposal: found.proposal, status: effectiveStatus(found.request, deps.clock()) } };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
}

/** The approval request opened for a call (by its proposal id), read as `viewRequest` reads it; `not_found` when the call had none. */
export function viewRequestOfCall(deps: GateDeps, proposalId: string): Promise<ViewResult> {
  return typeof proposalId === 'string' ? viewFound(deps, () => deps.ledger.findApprovalRequestByProposal(proposalId)) : Promise.resolve(NOT_FOUND);
}

async function viewFound(deps: GateDeps, read: () => Promise<ApprovalRequest | undefined>): Promise<ViewResult> {
  try {
    const request = await read();
    if (request === undefined) return NOT_FOUND;
    const view = await viewOf(deps, request, deps.clock());
    return view === undefined ? NOT_FOUND : { ok: true, view };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
}

/**
 * The request as its agent sees it: `not_found` unless `agent` owns the request's run,
 * so another agent's request reads exactly like one that does not exist.
 */
export async function viewForAgent(deps: GateDeps, agent: Agent, requestId: string): Promise<ViewResult> {
  const result = await viewRequest(deps, requestId);
  return result.ok && !isOwnedBy(result.view.proposal.agent, agent) ? NOT_FOUND : result;
}

/** The view of a request already read; undefined when its proposal is missing. Throws on store failure. */
export async function viewOf(deps: GateDeps, request: ApprovalRequest, now: number): Promise<RequestView | undefined> {
  const proposal = await deps.ledger.getProposal(request.proposalId);
  return proposal === undefined ? undefined : viewOfCall(deps, request, proposal, now);
}

/** The view of a request and its call, both already read. Throws on store failure. */
async function viewOfCall(deps: GateDeps, request: ApprovalRequest, proposal: Proposal, now: number): Promise<RequestView> {
  const [edited, review] = await Promise.all([editedCallOf(deps, request), reviewViewOf(deps, proposal)]);
  // A definition review is about a tool definition, not a call: it has no definition of its own.
  const definition: DefinitionView = review === undefined ? await definitionViewOf(deps, proposal) : { status: 'none' };
  return {
    request,
    proposal,
    status: effectiveStatus(request, now),
    definition,
    ...(review === undefined ? {} : { review }),
    ...(edited === undefined ? {} : { edited }),
  };
}

/**
 * The request as an approver who acts on it sees it (revoke, withdraw): `not_eligible`
 * when `approver` may not decide it, so each action checks eligibility the same way.
 */
export async function viewForDecider(
  deps: GateDeps,
  approver: Approver,
  requestId: string,
): Promise<ViewResult | { ok: false; reason: 'not_eligible'; message: string }> {
  const found = await viewRequest(deps, requestId);
  if (found.ok && !mayDecide(found.view.request.eligible, approver, found.view.proposal.principal)) {
    return { ok: false, reason: 'not_eligible', message: `${approver.id} may not decide this request` };
  }
  return found;
}
