import { emit } from '../events/emit.ts';
import { effectiveStatus } from '../ledger/effective-status.ts';
import type { ApprovalRequest, Proposal } from '../ledger/types.ts';
import { mintApprovalToken } from '../token/mint.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from './agent.ts';
import { approveWithEdits } from './approve-with-edits.ts';
import { appendAfterEffect, decisionEvents } from './audit-decision.ts';
import type { GateDeps } from './config.ts';
import type { ToolDefinition } from './tools.ts';
import { type Approver, eligibilityOf, mayDecide } from './eligibility.ts';
import { callClaimsOf } from './expected-call.ts';
import type { InputSchemaProblem } from './input-schema.ts';
import { callIds, errorMessage, eventAbout } from './propose.ts';

const MAX_REASON_LENGTH = 1000;

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
  /** The input is not a decision: `decision` other than 'approve'/'deny', a non-string id or reason. */
  | 'invalid_decision'
  /** Approve-with-edits: policy denies the edited call, so the edit is refused (the original stays pending). */
  | 'edit_denied_by_policy'
  | 'store_unavailable';

export type DecisionOutcome =
  | {
      ok: true;
      request: ApprovalRequest;
      /** Present for approve-with-edits: the request for the edited call. */
      editedRequest?: ApprovalRequest | undefined;
      editedProposal?: Proposal | undefined;
      /**
       * Present (false) only when the decision took effect in the ledger but its audit
       * record(s) could not be appended: the decision stands (it is not reported as
       * failed), and the gap is the caller's to report (see `appendAfterEffect`).
       */
      auditRecorded?: false;
    }
  | {
      ok: false;
      reason: DecisionFailure;
      message: string;
      /** For `invalid_arguments` from the tool's input schema: what is wrong, by JSON Pointer. */
      problems?: InputSchemaProblem[] | undefined;
    };

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
    // The store filters by eligibility before the limit, so other requests can never crowd these out.
    const requests = await this.#deps.ledger.listApprovalRequests({ status, limit, eligibleFor: eligibilityOf(approver) }, now);
    const views: RequestView[] = [];
    for (const request of requests) {
      const proposal = await this.#deps.ledger.getProposal(request.proposalId);
      if (proposal !== undefined && mayDecide(request.eligible, approver, proposal.principal)) {
        views.push({ request, proposal, status: effectiveStatus(request, now), definition: this.#definitionOf(proposal) });
      }
    }
    return views;
  }

  async decide(approver: Approver, input: DecisionInput): Promise<DecisionOutcome> {
    const deps = this.#deps;
    const invalid = invalidDecision(input);
    if (invalid !== undefined) return fail('invalid_decision', invalid);
    try {
      const view = await this.view(input.requestId);
      if (view === undefined) return fail('not_found', 'no such approval request');
      if (!mayDecide(view.request.eligible, approver, view.proposal.principal)) {
        return fail('not_eligible', `${approver.id} may not decide this request`);
      }
      if (input.decision === 'approve' && input.editedArguments !== undefined) {
        return await approveWithEdits(deps, approver, view, input);
      }
      const now = deps.clock();
      const result = await deps.ledger.addDecision(
        view.request.requestId,
        { approver: approver.id, decision: input.decision, reason: input.reason, at: now },
        { now, tokenIdIfApproved: deps.newId() },
      );
      if (!result.ok) return fail(result.reason, `decision refused: ${result.reason}`);
      // The decision has taken effect: from here on, nothing may report it as failed.
      emit(deps.events, {
        type: 'decided',
        at: now,
        requestId: result.request.requestId,
        approver: approver.id,
        decision: input.decision,
        status: result.request.status,
        ...callIds(view.proposal),
      });
      const events = decisionEvents(deps.keyring, view.proposal, result.request, {
        approver: approver.id,
        decision: input.decision,
        reason: input.reason,
        at: now,
      });
      const audited = await appendAfterEffect(deps.audit, events);
      return audited ? { ok: true, request: result.request } : { ok: true, request: result.request, auditRecorded: false };
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
      emit(this.#deps.events, { type: 'token_minted', at: this.#deps.clock(), requestId, agent: agent.id, ...callIds(proposal) });
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
      emit(this.#deps.events, { type: 'revoked', at: now, requestId, approver: approver.id, ...callIds(view.proposal) });
      await this.#deps.audit.append({ ...eventAbout(view.proposal, 'revocation', now), requestId, actor: approver.id });
    }
    return revoked;
  }
}

function fail(reason: DecisionFailure, message: string): DecisionOutcome {
  return { ok: false, reason, message };
}

/**
 * Why `input` is not a decision, or undefined. The type says 'approve' | 'deny', but
 * callers reach this from JSON and other languages: anything else ('reject', 'DENY',
 * undefined) is refused here, before any store sees it, never counted as an approval.
 */
function invalidDecision(input: DecisionInput): string | undefined {
  if (typeof input !== 'object' || input === null) return 'a decision must be an object';
  if (typeof input.requestId !== 'string' || input.requestId.length === 0) return 'requestId must be a non-empty string';
  const decision: unknown = input.decision;
  if (decision !== 'approve' && decision !== 'deny') return `decision must be "approve" or "deny", not ${JSON.stringify(decision) ?? 'undefined'}`;
  if (input.reason !== undefined && (typeof input.reason !== 'string' || input.reason.length > MAX_REASON_LENGTH)) {
    return `reason must be a string of at most ${MAX_REASON_LENGTH} characters`;
  }
  if (decision === 'deny' && input.editedArguments !== undefined) return 'edited arguments only go with approve';
  return undefined;
}
