import { copyRequest } from './copy-records.ts';
import type { ApprovalRequest, NewApprovalRequest, Proposal, ProposalInput } from './types.ts';

/**
 * The call as a store records it when `recordProposal` creates it: the input, `proposed`,
 * or `dispatched` at `consumedAt` (see `RecordProposalOptions.consumedAt`). What the
 * proposal's audit records are built from before the write (`AuditIfWritten`): they are
 * appended only when the write created exactly this call.
 */
export function recordedProposalOf(input: ProposalInput, consumedAt: number | undefined): Proposal {
  return consumedAt === undefined ? { ...input, state: 'proposed' } : { ...input, state: 'dispatched', dispatchedAt: consumedAt };
}

/** An approval request as a store opens it: pending, without decisions. */
export function openedRequestOf(input: NewApprovalRequest): ApprovalRequest {
  return copyRequest({ ...input, status: 'pending', decisions: [] });
}
