import { serializeCanonical } from '../../canonical/serialize.ts';
import type { ToolPin } from '../../catalog/types.ts';
import { sha256Hex } from '../../digest.ts';
import { effectiveStatus } from '../../ledger/effective-status.ts';
import type { ApprovalRequest, Proposal } from '../../ledger/types.ts';
import { auditBestEffort } from '../common/audit-safely.ts';
import type { GateDeps } from '../config.ts';
import { eventAbout } from '../common/call-records.ts';

/**
 * A changed tool definition is re-approved through an ordinary approval request, so the
 * ledger's rules (k of n distinct approvers, expiry, eligibility filtered in the store,
 * one decision per approver) apply unchanged. The request is about a reserved call:
 * recorded by a reserved agent in a reserved run that no agent can create (propose
 * refuses run ids with this prefix), naming a tool no catalogue can serve.
 */
export const REVIEW_AGENT = 'countersign:definitions';
export const REVIEW_RUN_PREFIX = 'countersign:';
export const REVIEW_TOOL = 'countersign:definition-review';
const REVIEW_RULE_ID = 'definition-review';

/** What a review asks: may `toolName` run under `digest` instead of `previousDigest`? */
export interface ReviewSubject {
  toolName: string;
  previousDigest?: string | undefined;
  digest: string;
}

export function isReviewProposal(proposal: Proposal): boolean {
  return proposal.agent === REVIEW_AGENT && proposal.toolName === REVIEW_TOOL && proposal.runId.startsWith(REVIEW_RUN_PREFIX);
}

export function reviewSubjectOf(proposal: Proposal): ReviewSubject | undefined {
  if (!isReviewProposal(proposal)) return undefined;
  const args = JSON.parse(proposal.canonicalArgs) as { toolName: string; previousDigest: string | null; digest: string };
  return { toolName: args.toolName, previousDigest: args.previousDigest ?? undefined, digest: args.digest };
}

// One review per move of the pin to `changed`: everyone who saw the same move (same
// pin, same updatedAt) names the same call, and the ledger's (run, call) key makes it one.
function reviewKey(pin: ToolPin): { runId: string; callId: string } {
  return { runId: `${REVIEW_RUN_PREFIX}definition-review:${pin.toolName}`, callId: `${pin.pendingDigest}@${pin.updatedAt}` };
}

/**
 * The agent that registered the definition under review, when an agent did (`registerTools`);
 * undefined for a tool served by an MCP server or a configured catalogue. Kept in the review
 * record's own `registeredBy` (not part of what makes two records the same call, so every
 * writer still opens the one review; the SQL stores moved it there from `context`).
 */
export function reviewRegistrantOf(proposal: Proposal): string | undefined {
  return isReviewProposal(proposal) ? proposal.registeredBy : undefined;
}

/** The review request for a `changed` pin, opening it if nobody has yet. `registeredBy`: see reviewRegistrantOf. */
export async function openReview(deps: GateDeps, pin: ToolPin, registeredBy?: string): Promise<ApprovalRequest> {
  const { runId, callId } = reviewKey(pin);
  const subject = { toolName: pin.toolName, previousDigest: pin.trustedDigest ?? null, digest: pin.pendingDigest };
  const canonicalArgs = serializeCanonical(subject);
  const recorded = await deps.ledger.recordProposal({
    proposalId: deps.newId(),
    runId,
    sessionId: REVIEW_AGENT,
    principal: REVIEW_AGENT,
    agent: REVIEW_AGENT,
    callId,
    toolName: REVIEW_TOOL,
    canonicalArgs,
    argsDigest: sha256Hex(canonicalArgs),
    ...(registeredBy === undefined ? {} : { registeredBy }),
    createdAt: pin.updatedAt,
  });
  if (!recorded.ok) throw new Error(`definition review for ${pin.toolName} could not be recorded: ${recorded.reason}`);
  const proposalId = recorded.proposal.proposalId;
  const existing = await deps.ledger.findApprovalRequestByProposal(proposalId);
  if (existing !== undefined) return existing;
  const rule = deps.definitionReview;
  let created: ApprovalRequest;
  try {
    created = await deps.ledger.createApprovalRequest({
      requestId: deps.newId(),
      proposalId,
      createdAt: pin.updatedAt,
      expiresAt: pin.updatedAt + rule.ttlSeconds * 1000,
      requiredApprovals: rule.requiredApprovals,
      eligible: rule.eligible,
      ruleId: REVIEW_RULE_ID,
    });
  } catch (error) {
    // Another replica opened it between our look and our insert: theirs is the one.
    const raced = await deps.ledger.findApprovalRequestByProposal(proposalId);
    if (raced !== undefined) return raced;
    throw error;
  }
  await auditBestEffort(deps.audit, {
    ...eventAbout(recorded.proposal, 'approval_requested', pin.updatedAt),
    requestId: created.requestId,
    detail: {
      expiresAt: created.expiresAt,
      requiredApprovals: created.requiredApprovals,
      ruleId: REVIEW_RULE_ID,
      reviewedTool: pin.toolName,
      ...(registeredBy === undefined ? {} : { registeredBy }),
    },
  });
  return created;
}

/** The review request for a `changed` pin, if it was opened. */
export async function findReview(deps: Pick<GateDeps, 'ledger'>, pin: ToolPin): Promise<ApprovalRequest | undefined> {
  const { runId, callId } = reviewKey(pin);
  const proposal = await deps.ledger.findProposalByCall(runId, callId);
  return proposal === undefined ? undefined : deps.ledger.findApprovalRequestByProposal(proposal.proposalId);
}

export type ReviewState = 'open' | 'approved' | 'denied' | 'expired' | 'missing';

export function reviewState(request: ApprovalRequest | undefined, now: number): ReviewState {
  if (request === undefined) return 'missing';
  const status = effectiveStatus(request, now);
  if (status === 'approved' || status === 'consumed') return 'approved';
  if (status === 'denied' || status === 'revoked') return 'denied';
  return status === 'expired' ? 'expired' : 'open';
}
