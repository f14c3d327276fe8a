import type { DefinitionReviewView, DefinitionView, Gate, RequestView } from '@countersign/core/gate';
import type { ApprovalRequest, ApprovalStatus, ApproverRule } from '@countersign/core/ledger';
import { type CallDisplay, callDisplayOf } from './call-display.ts';

export interface DecisionView {
  approver: string;
  decision: 'approve' | 'deny';
  reason?: string | undefined;
  at: number;
  /** Approve-with-edits: the proposal holding the approver's edited call. */
  editedProposalId?: string | undefined;
  /** Signed with this passkey (credential id, base64url): the approver's own device signed this decision. */
  passkeyCredentialId?: string | undefined;
}

/** Where an approve-with-edits sent the call: the new request the agent should wait on. */
export interface EditedCallView {
  requestId: string;
  proposalId: string;
  callId: string;
  argsDigest: string;
}

/** An approval request and its call, exactly as the ledger holds them. */
export interface ApprovalView {
  requestId: string;
  status: ApprovalStatus;
  createdAt: number;
  expiresAt: number;
  /** When the last required approval came in, and when the call was dispatched (consumed). */
  approvedAt?: number | undefined;
  consumedAt?: number | undefined;
  /** k of n: distinct approvals so far, and how many are needed. */
  approvals: number;
  requiredApprovals: number;
  ruleId?: string | undefined;
  /** `required`: each decision must carry the approver's passkey assertion (see POST /passkey-challenge). */
  passkey?: 'required' | undefined;
  /** The rule's human description, as the policy gave it when the call was proposed. */
  ruleDescription?: string | undefined;
  /** Who may decide: the rule stored with the request. */
  eligible: ApproverRule;
  call: {
    proposalId: string;
    toolName: string;
    definitionDigest?: string | undefined;
    /** The definition the approver is shown: the gate's, when its digest is the recorded one. */
    definition: DefinitionView;
    /** RFC 8785 text of the arguments: byte for byte what will run. */
    canonicalArguments: string;
    /** SHA-256 (hex) of `canonicalArguments`. */
    argsDigest: string;
    principal: string;
    /** The agent runtime that recorded the call (the owner of its run). */
    agent: string;
    runId: string;
    sessionId: string;
    callId: string;
    responseRef?: string | undefined;
    /** Set when this call is an approver's edit of another proposal. */
    parentProposalId?: string | undefined;
    /** What the agent said about the call: its untrusted words, not part of what runs. */
    context?: string | undefined;
    /** What became of the call once it ran (consumed requests), when the runtime reported it. */
    result?: { status: 'succeeded' | 'failed'; at: number } | undefined;
  };
  decisions: DecisionView[];
  edited?: EditedCallView | undefined;
  /** A definition review: the trusted and the new definition of the tool, from the store. */
  review?: DefinitionReviewView | undefined;
  /** For people: what in this call does not read as what it is, and where it breaks the tool's schema. */
  display: CallDisplay;
}

export function approvalCount(request: ApprovalRequest): number {
  return new Set(request.decisions.filter((d) => d.decision === 'approve').map((d) => d.approver)).size;
}

export function decisionViews(request: ApprovalRequest): DecisionView[] {
  return request.decisions.map((d) => ({
    approver: d.approver,
    decision: d.decision,
    ...(d.reason === undefined ? {} : { reason: d.reason }),
    at: d.at,
    ...(d.editedProposalId === undefined ? {} : { editedProposalId: d.editedProposalId }),
    ...(d.passkey === undefined ? {} : { passkeyCredentialId: d.passkey.credentialId }),
  }));
}

/** Where an approve-with-edits sent this request's call, once the edited request exists. */
function editedCallView(view: RequestView): EditedCallView | undefined {
  const edited = view.edited;
  if (edited?.requestId === undefined) return undefined;
  return { requestId: edited.requestId, proposalId: edited.proposalId, callId: edited.callId, argsDigest: edited.argsDigest };
}

export async function approvalView(_gate: Gate, view: RequestView): Promise<ApprovalView> {
  const { request, proposal } = view;
  const edited = editedCallView(view);
  return {
    requestId: request.requestId,
    status: view.status,
    createdAt: request.createdAt,
    expiresAt: request.expiresAt,
    ...(request.approvedAt === undefined ? {} : { approvedAt: request.approvedAt }),
    ...(request.consumedAt === undefined ? {} : { consumedAt: request.consumedAt }),
    approvals: approvalCount(request),
    requiredApprovals: request.requiredApprovals,
    ...(request.ruleId === undefined ? {} : { ruleId: request.ruleId }),
    ...(request.passkey === undefined ? {} : { passkey: request.passkey }),
    ...(request.ruleDescription === undefined ? {} : { ruleDescription: request.ruleDescription }),
    eligible: request.eligible,
    call: {
      proposalId: proposal.proposalId,
      toolName: proposal.toolName,
      ...(proposal.definitionDigest === undefined ? {} : { definitionDigest: proposal.definitionDigest }),
      definition: view.definition,
      canonicalArguments: proposal.canonicalArgs,
      argsDigest: proposal.argsDigest,
      principal: proposal.principal,
      agent: proposal.agent,
      runId: proposal.runId,
      sessionId: proposal.sessionId,
      callId: proposal.callId,
      ...(proposal.responseRef === undefined ? {} : { responseRef: proposal.responseRef }),
      ...(proposal.parentProposalId === undefined ? {} : { parentProposalId: proposal.parentProposalId }),
      ...(proposal.context === undefined ? {} : { context: proposal.context }),
      ...(proposal.result === undefined ? {} : { result: { status: proposal.result.status, at: proposal.result.at } }),
    },
    decisions: decisionViews(request),
    ...(edited === undefined ? {} : { edited }),
    ...(view.review === undefined ? {} : { review: view.review }),
    display: callDisplayOf(view),
  };
}

/** A cheap fingerprint of what a waiting client has seen: status and decisions so far. */
export function statusFingerprint(view: Pick<ApprovalView, 'status' | 'decisions'>): string {
  return `${view.status}:${view.decisions.length}`;
}

/** What the request page shows that can change without a reload: status, decisions, the call's result, the edit. */
export function requestFingerprint(view: Pick<ApprovalView, 'status' | 'decisions' | 'call' | 'edited'>): string {
  return `${statusFingerprint(view)}:${view.call.result?.status ?? ''}:${view.edited?.requestId ?? ''}`;
}
