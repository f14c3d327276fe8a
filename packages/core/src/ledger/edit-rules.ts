import { copyRequest } from './copy-records.ts';
import { decisionRefusal, statusAfterDecision } from './decision-rules.ts';
import type { ApprovalRequest, EditInput, EditRefusal, Proposal } from './types.ts';

// The rules of `LedgerStore.recordEdit`, in one place for every backend. A store reads
// the original request (locked, in its atomic step), its proposal and the run's owner,
// asks `editRefusal`, and writes only when it answers undefined: every refusal is
// decided before the first write, so a refused edit leaves nothing behind.

/**
 * Why `input` cannot be recorded as an edit of `original` (whose call is
 * `originalProposal`), or undefined when it can. `runOwner` is the owner of the edited
 * call's run as the store holds it.
 */
export function editRefusal(
  original: ApprovalRequest,
  originalProposal: Proposal,
  runOwner: string | undefined,
  input: EditInput,
): EditRefusal | undefined {
  const shape = editShapeProblem(input, originalProposal);
  if (shape !== undefined) return shape;
  const closing = decisionRefusal(original, input.original.decision, input.now);
  if (closing !== undefined) return closing;
  if (runOwner !== input.proposal.agent) return 'run_owned_by_other_agent';
  if (input.editorApproval !== undefined) {
    const refused = decisionRefusal(openedRequest(input), input.editorApproval.decision, input.now);
    if (refused !== undefined) return refused;
  }
  return undefined;
}

/**
 * The parts must describe one edit of this call: the closing decision a deny naming the
 * edited proposal, the new request for that proposal, the edited call the original's
 * (same run, session, principal, agent, tool and definition) with only its arguments
 * changed, and the editor's decision an approval. Anything else would let one caller
 * close a request by "editing" it into some other call.
 */
function editShapeProblem(input: EditInput, originalProposal: Proposal): 'invalid_edit' | undefined {
  const { original, proposal, request, editorApproval } = input;
  const linked =
    original.decision.decision === 'deny' &&
    original.decision.editedProposalId === proposal.proposalId &&
    request.proposalId === proposal.proposalId &&
    proposal.proposalId !== originalProposal.proposalId &&
    proposal.parentProposalId === originalProposal.proposalId;
  const sameCall =
    proposal.runId === originalProposal.runId &&
    proposal.sessionId === originalProposal.sessionId &&
    proposal.principal === originalProposal.principal &&
    proposal.agent === originalProposal.agent &&
    proposal.toolName === originalProposal.toolName &&
    (proposal.definitionDigest ?? null) === (originalProposal.definitionDigest ?? null);
  const approves = editorApproval === undefined || editorApproval.decision.decision === 'approve';
  return linked && sameCall && approves ? undefined : 'invalid_edit';
}

/** The edited call's request as it is opened, before the editor's approval. */
export function openedRequest(input: EditInput): ApprovalRequest {
  return copyRequest({ ...input.request, status: 'pending', decisions: [] });
}

/** The edited request's status once the editor's approval (if any) is added. */
export function editedRequestStatus(input: EditInput): 'pending' | 'approved' {
  if (input.editorApproval === undefined) return 'pending';
  // editRefusal admitted only an approval, which never denies.
  return statusAfterDecision(openedRequest(input), input.editorApproval.decision) === 'approved' ? 'approved' : 'pending';
}
