import { canonicalizeArguments } from '../canonical/canonicalize-arguments.ts';
import { CanonicalizationError } from '../canonical/errors.ts';
import { effectiveStatus } from '../ledger/effective-status.ts';
import type { ApprovalRequest, Proposal } from '../ledger/types.ts';
import { signDecisionRecord } from '../token/decision-record.ts';
import { mintApprovalToken } from '../token/mint.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from './agent.ts';
import type { GateDeps } from './config.ts';
import type { ToolDefinition } from './tools.ts';
import { type Approver, mayDecide } from './eligibility.ts';
import { callClaimsOf } from './expected-call.ts';
import { errorMessage, eventAbout } from './propose.ts';

/** How many requests `listFor` reads before filtering by eligibility. */
const LIST_WINDOW = 1000;

export interface DecisionInput {
  requestId: string;
  decision: 'approve' | 'deny';
  reason?: string | undefined;
  /**
   * Approve-with-edits: the arguments the approver wants instead. They become a new
   * proposal approved as its own call; the original is closed and linked to it.
   */
  editedArguments?: unknown;
}

export type DecisionFailure =
  | 'not_found'
  | 'not_eligible'
  | 'expired'
  | 'already_decided'
  | 'duplicate_approver'
  | 'invalid_arguments'
  | 'store_unavailable';

export type DecisionOutcome =
  | {
      ok: true;
      request: ApprovalRequest;
      /** Present for approve-with-edits: the request for the edited call. */
      editedRequest?: ApprovalRequest | undefined;
      editedProposal?: Proposal | undefined;
    }
  | { ok: false; reason: DecisionFailure; message: string };

/**
 * The tool definition an approver is shown beside a call: the one this gate runs,
 * when its digest is the one recorded with the call. `changed` means the tool's
 * definition is no longer the pinned one (the call cannot dispatch); `unknown_tool`
 * that no such tool is registered; `none` that the tool has no definition.
 */
export type DefinitionView =
  | { status: 'pinned'; definition: ToolDefinition }
  | { status: 'changed' | 'unknown_tool' | 'none' };

/** A request with the call it is about, exactly as recorded. */
export interface RequestView {
  request: ApprovalRequest;
  proposal: Proposal;
  status: ReturnType<typeof effectiveStatus>;
  definition: DefinitionView;
}

export type TokenOutcome =
  | { ok: true; token: string; requestId: string; expiresAt: number }
  | { ok: false; reason: 'not_found' | 'not_approved' | 'store_unavailable'; status?: string | undefined; message: string };

/**
 * The approver's side: read requests exactly as the ledger holds them, record
 * decisions by authenticated approvers, and mint tokens bound to the LEDGER's call
 * (invariant 4: nothing in a decision can change what runs).
 */
export class ApprovalService {
  readonly #deps: GateDeps;
  constructor(deps: GateDeps) {
    this.#deps = deps;
  }

  async view(requestId: string): Promise<RequestView | undefined> {
    const request = await this.#deps.ledger.getApprovalRequest(requestId);
    if (request === undefined) return undefined;
    const proposal = await this.#deps.ledger.getProposal(request.proposalId);
    if (proposal === undefined) return undefined;
    return { request, proposal, status: effectiveStatus(request, this.#deps.clock()), definition: this.#definitionOf(proposal) };
  }

  #definitionOf(proposal: Proposal): DefinitionView {
    const pinned = this.#deps.toolIndex.get(proposal.toolName);
    if (pinned === undefined) return { status: 'unknown_tool' };
    if (pinned.definitionDigest !== proposal.definitionDigest) return { status: 'changed' };
    const definition = pinned.tool.definition;
    return definition === undefined ? { status: 'none' } : { status: 'pinned', definition };
  }

  /**
   * The request as its agent sees it: undefined unless `agent` owns the request's run,
   * so another agent's request reads exactly like one that does not exist.
   */
  async agentView(agent: Agent, requestId: string): Promise<RequestView | undefined> {
    const view = await this.view(requestId);
    return view !== undefined && isOwnedBy(view.proposal.agent, agent) ? view : undefined;
  }

  /** Requests this approver may decide, with their calls. */
  async listFor(approver: Approver, status: RequestView['status'] = 'pending', limit = 100): Promise<RequestView[]> {
    const now = this.#deps.clock();
    // Eligibility is filtered here, so read a wider window than `limit` from the ledger.
    const requests = await this.#deps.ledger.listApprovalRequests({ status, limit: LIST_WINDOW }, now);
    const views: RequestView[] = [];
    for (const request of requests) {
      if (views.length >= limit) break;
      const proposal = await this.#deps.ledger.getProposal(request.proposalId);
      if (proposal !== undefined && mayDecide(request.eligible, approver, proposal.principal)) {
        views.push({ request, proposal, status: effectiveStatus(request, now), definition: this.#definitionOf(proposal) });
      }
    }
    return views;
  }

  async decide(approver: Approver, input: DecisionInput): Promise<DecisionOutcome> {
    const deps = this.#deps;
    try {
      const view = await this.view(input.requestId);
      if (view === undefined) return fail('not_found', 'no such approval request');
      if (!mayDecide(view.request.eligible, approver, view.proposal.principal)) {
        return fail('not_eligible', `${approver.id} may not decide this request`);
      }
      if (input.decision === 'approve' && input.editedArguments !== undefined) {
        return await this.#approveWithEdits(approver, view, input);
      }
      const now = deps.clock();
      const result = await deps.ledger.addDecision(
        view.request.requestId,
        { approver: approver.id, decision: input.decision, reason: input.reason, at: now },
        { now, tokenIdIfApproved: deps.newId() },
      );
      if (!result.ok) return fail(result.reason, `decision refused: ${result.reason}`);
      await this.#auditDecision(view.proposal, result.request, approver.id, input.decision, input.reason, now);
      return { ok: true, request: result.request };
    } catch (error) {
      return fail('store_unavailable', `ledger or audit store failed: ${errorMessage(error)}`);
    }
  }

  /**
   * The token for an approved request, minted from the ledger's record (deterministic,
   * so it can be fetched again). Only for the agent that owns the call's run; for any
   * other agent the request is `not_found`.
   */
  async token(requestId: string, agent: Agent = DEFAULT_AGENT): Promise<TokenOutcome> {
    try {
      const view = await this.agentView(agent, requestId);
      if (view === undefined) return { ok: false, reason: 'not_found', message: 'no such approval request' };
      const { request, proposal } = view;
      if (view.status !== 'approved' || request.tokenId === undefined || request.approvedAt === undefined) {
        return { ok: false, reason: 'not_approved', status: view.status, message: `request is ${view.status}` };
      }
      const token = mintApprovalToken(
        {
          ...callClaimsOf(proposal),
          apr: request.decisions.filter((d) => d.decision === 'approve').map((d) => d.approver),
          req: request.requestId,
          iat: Math.floor(request.approvedAt / 1000),
          exp: Math.floor(request.expiresAt / 1000),
          jti: request.tokenId,
        },
        this.#deps.keyring,
      );
      return { ok: true, token, requestId, expiresAt: request.expiresAt };
    } catch (error) {
      return { ok: false, reason: 'store_unavailable', message: errorMessage(error) };
    }
  }

  async revoke(approver: Approver, requestId: string): Promise<boolean> {
    const view = await this.view(requestId);
    if (view === undefined || !mayDecide(view.request.eligible, approver, view.proposal.principal)) return false;
    const now = this.#deps.clock();
    const revoked = await this.#deps.ledger.revokeApproval(requestId, now);
    if (revoked) {
      await this.#deps.audit.append({ ...eventAbout(view.proposal, 'revocation', now), requestId, actor: approver.id });
    }
    return revoked;
  }

  async #approveWithEdits(approver: Approver, view: RequestView, input: DecisionInput): Promise<DecisionOutcome> {
    const deps = this.#deps;
    let edited: ReturnType<typeof canonicalizeArguments>;
    try {
      edited = canonicalizeArguments(input.editedArguments, deps.argumentLimits);
    } catch (error) {
      const message = error instanceof CanonicalizationError ? `${error.code}: ${error.message}` : errorMessage(error);
      return fail('invalid_arguments', message);
    }
    const now = deps.clock();
    if (view.status !== 'pending') return fail(view.status === 'expired' ? 'expired' : 'already_decided', `request is ${view.status}`);
    const original = view.proposal;
    const editedProposalId = deps.newId();
    const recorded = await deps.ledger.recordProposal({
      proposalId: editedProposalId,
      runId: original.runId,
      sessionId: original.sessionId,
      principal: original.principal,
      agent: original.agent,
      callId: `${original.callId}~edit-${editedProposalId}`,
      toolName: original.toolName,
      definitionDigest: original.definitionDigest,
      canonicalArgs: edited.canonical,
      argsDigest: edited.digest,
      modelResponseRef: original.modelResponseRef,
      parentProposalId: original.proposalId,
      createdAt: now,
    });
    if (!recorded.ok) return fail('already_decided', 'an edit of this call already exists');
    // Close the original first: if that fails (already decided, expired), the edit never gets approved.
    const closed = await deps.ledger.addDecision(
      view.request.requestId,
      { approver: approver.id, decision: 'deny', reason: input.reason ?? 'edited', at: now, editedProposalId },
      { now, tokenIdIfApproved: deps.newId() },
    );
    if (!closed.ok) return fail(closed.reason, `decision refused: ${closed.reason}`);
    const editedProposal = recorded.proposal;
    await deps.audit.append({ ...eventAbout(editedProposal, 'proposal', now), actor: approver.id, detail: { editedFrom: original.proposalId, originalArgsDigest: original.argsDigest } });
    await this.#auditDecision(original, closed.request, approver.id, 'deny', input.reason ?? 'edited', now, editedProposalId);

    const editedRequest = await deps.ledger.createApprovalRequest({
      requestId: deps.newId(),
      proposalId: editedProposalId,
      createdAt: now,
      expiresAt: view.request.expiresAt,
      requiredApprovals: view.request.requiredApprovals,
      eligible: view.request.eligible,
      ruleId: view.request.ruleId,
    });
    await deps.audit.append({ ...eventAbout(editedProposal, 'approval_requested', now), requestId: editedRequest.requestId, detail: { editedFrom: original.proposalId } });
    const approved = await deps.ledger.addDecision(
      editedRequest.requestId,
      { approver: approver.id, decision: 'approve', reason: input.reason, at: now },
      { now, tokenIdIfApproved: deps.newId() },
    );
    if (!approved.ok) return fail(approved.reason, `decision refused: ${approved.reason}`);
    await this.#auditDecision(editedProposal, approved.request, approver.id, 'approve', input.reason, now);
    return { ok: true, request: closed.request, editedRequest: approved.request, editedProposal };
  }

  async #auditDecision(
    proposal: Proposal,
    request: ApprovalRequest,
    approver: string,
    decision: 'approve' | 'deny',
    reason: string | undefined,
    at: number,
    editedProposalId?: string,
  ): Promise<void> {
    // Each decision is its own signed record, bound to the call the approver was shown.
    const record = signDecisionRecord(
      {
        ...callClaimsOf(proposal),
        req: request.requestId,
        prop: proposal.proposalId,
        apr: approver,
        dec: decision,
        rsn: reason ?? null,
        edit: editedProposalId ?? null,
        at,
      },
      this.#deps.keyring,
    );
    await this.#deps.audit.append({
      ...eventAbout(proposal, 'decision', at),
      requestId: request.requestId,
      actor: approver,
      reason,
      detail: { decision, status: request.status, record, ...(editedProposalId ? { editedProposalId } : {}) },
    });
    if (request.status === 'approved' && request.tokenId !== undefined) {
      await this.#deps.audit.append({
        ...eventAbout(proposal, 'token_minted', at),
        requestId: request.requestId,
        actor: approver,
        detail: { tokenId: request.tokenId, expiresAt: request.expiresAt },
      });
    }
  }
}

function fail(reason: DecisionFailure, message: string): DecisionOutcome {
  return { ok: false, reason, message };
}
