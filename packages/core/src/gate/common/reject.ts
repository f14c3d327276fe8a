import { emit } from '../../events/emit.ts';
import type { Proposal } from '../../ledger/types.ts';
import type { Agent } from './agent.ts';
import { auditBestEffort } from './audit-safely.ts';
import type { GateDeps } from '../config.ts';
import type { DeniedReason, NotApprovedReason } from './outcomes.ts';
import type { AuthorizeRequest } from './port.ts';
import { callIds, eventAbout } from '../common/call-records.ts';

export type Rejection = { status: 'not_approved'; reason: NotApprovedReason } | { status: 'denied'; reason: DeniedReason };

export type RejectionOutcome =
  | { status: 'not_approved'; reason: NotApprovedReason; message: string; proposalId?: string | undefined }
  | { status: 'denied'; reason: DeniedReason; message: string; proposalId?: string | undefined };

export const UNKNOWN_CALL: Rejection = { status: 'not_approved', reason: 'unknown_call' };

/**
 * Audits a refused authorization (best effort: the refusal stands even when the audit
 * log is down) and returns it as a typed outcome. For a call that is unknown (or
 * another agent's) the record keeps what was asked and by whom.
 */
export async function reject(
  deps: GateDeps,
  proposal: Proposal | undefined,
  rejection: Rejection,
  message: string,
  request?: Partial<AuthorizeRequest>,
  agent?: Agent,
  tokenId?: string,
): Promise<RejectionOutcome> {
  const at = deps.clock();
  const base = proposal
    ? eventAbout(proposal, 'rejection', at)
    : {
        type: 'rejection' as const,
        at,
        runId: stringOrUndefined(request?.runId),
        sessionId: stringOrUndefined(request?.sessionId),
        callId: stringOrUndefined(request?.callId),
        actor: stringOrUndefined(request?.principal),
      };
  const asked = proposal === undefined && typeof request?.proposalId === 'string' ? { proposalId: request.proposalId } : {};
  const who = proposal === undefined && agent !== undefined ? { agent: agent.id } : {};
  await auditBestEffort(deps.audit, {
    ...base,
    reason: rejection.reason,
    detail: { status: rejection.status, ...asked, ...who, ...(tokenId ? { tokenId } : {}) },
  });
  // Ids only for a recorded call: an unknown call's ids are whatever the runtime sent.
  emit(deps.events, { type: 'rejected', at, stage: 'authorize', reason: rejection.reason, ...(proposal ? callIds(proposal) : {}) });
  return { ...rejection, message, proposalId: proposal?.proposalId } as RejectionOutcome;
}

/** Request fields come from the runtime unchecked; only strings go into the audit record. */
export function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
