import type { ApprovalRequest } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import type { EditedCall } from './types.ts';

/**
 * Approve-with-edits closes the original (`edited`) with a deny that names the edited
 * proposal; this follows it, in the ledger only: nothing a client sends can point an
 * agent at another call.
 */
export async function editedCallOf(deps: GateDeps, request: ApprovalRequest): Promise<EditedCall | undefined> {
  const editedProposalId = request.decisions.find((d) => d.editedProposalId !== undefined)?.editedProposalId;
  if (editedProposalId === undefined) return undefined;
  const [proposal, editedRequest] = await Promise.all([
    deps.ledger.getProposal(editedProposalId),
    deps.ledger.findApprovalRequestByProposal(editedProposalId),
  ]);
  if (proposal === undefined) return undefined;
  return { proposalId: proposal.proposalId, requestId: editedRequest?.requestId, callId: proposal.callId, argsDigest: proposal.argsDigest };
}
