import type { ApprovalStatus } from '../../ledger/types.ts';
import { type Agent, DEFAULT_AGENT } from '../common/agent.ts';
import type { GateDeps } from '../config.ts';
import type { Approver } from './eligibility.ts';
import { decide } from './decide.ts';
import { issueToken } from './issue-token.ts';
import { countPendingRequests, listRequests } from './list-requests.ts';
import { revoke } from './revoke.ts';
import { withdraw } from './withdraw.ts';
import type { DecideOptions, DecisionInput, DecisionOutcome, ListResult, RevokeOutcome, ViewResult, WithdrawOutcome } from './types.ts';
import type { TokenResult } from '../common/port.ts';
import { viewForAgent, viewRequest, viewRequestOfCall } from './view-request.ts';

/**
 * The approver's side: read requests exactly as the ledger holds them, record
 * decisions by authenticated approvers, and mint tokens bound to the LEDGER's call
 * (invariant 4: nothing in a decision can change what runs). A thin facade: each
 * operation lives in its own file, and each answers `{ ok }`, never throws.
 */
export class ApprovalService {
  readonly #deps: GateDeps;
  constructor(deps: GateDeps) {
    this.#deps = deps;
  }

  /** A request and its call (no eligibility filter: for callers inside the trust boundary). */
  view(requestId: string): Promise<ViewResult> {
    return viewRequest(this.#deps, requestId);
  }

  /** The request opened for a call, by the call's proposal id (no eligibility filter, as `view`). */
  viewOfCall(proposalId: string): Promise<ViewResult> {
    return viewRequestOfCall(this.#deps, proposalId);
  }

  /** The request as `agent` sees it: `not_found` unless `agent` owns the call's run. */
  agentView(agent: Agent, requestId: string): Promise<ViewResult> {
    return viewForAgent(this.#deps, agent, requestId);
  }

  /** Requests this approver may decide, with their calls. */
  listFor(approver: Approver, status: ApprovalStatus = 'pending', limit = 100): Promise<ListResult> {
    return listRequests(this.#deps, approver, status, limit);
  }

  /** Pending, unexpired requests, at most `limit` counted: for an operator's gauge, not per approver. */
  countPending(limit: number): Promise<number> {
    return countPendingRequests(this.#deps, limit);
  }

  /** `options.passkeys`: how to check an assertion; without it a request under a passkey rule takes no decision. */
  decide(approver: Approver, input: DecisionInput, options: DecideOptions = {}): Promise<DecisionOutcome> {
    return decide(this.#deps, approver, input, options);
  }

  token(requestId: string, agent: Agent = DEFAULT_AGENT): Promise<TokenResult> {
    return issueToken(this.#deps, requestId, agent);
  }

  revoke(approver: Approver, requestId: string): Promise<RevokeOutcome> {
    return revoke(this.#deps, approver, requestId);
  }

  /** Takes back this approver's own approval while the request is still pending (n of m). */
  withdraw(approver: Approver, requestId: string): Promise<WithdrawOutcome> {
    return withdraw(this.#deps, approver, requestId);
  }
}
