import { emit } from '../../events/emit.ts';
import { appendAfterEffect } from './audit-decision.ts';
import { auditsAtomically } from '../common/audited-write.ts';
import type { GateDeps } from '../config.ts';
import type { Approver } from './eligibility.ts';
import { callIds, errorMessage, eventAbout } from '../common/call-records.ts';
import type { RevokeOutcome } from './types.ts';
import { settleLostWrite } from '../common/settle-lost-write.ts';
import { viewForDecider } from './view-request.ts';

/**
 * Withdraws an approval that has not been used (pending or approved → revoked), by an
 * approver who may decide the request. A token already fetched for it stops working:
 * consume refuses a revoked request. Never throws.
 */
export async function revoke(deps: GateDeps, approver: Approver, requestId: string): Promise<RevokeOutcome> {
  try {
    const found = await viewForDecider(deps, approver, requestId);
    if (!found.ok) return found;
    const { view } = found;
    const now = deps.clock();
    const events = (revoked: boolean) => (revoked ? [{ ...eventAbout(view.proposal, 'revocation', now), requestId, actor: approver.id }] : []);
    // With a store that holds both, the revocation and its record commit together.
    const atomic = auditsAtomically(deps);
    let revoked: boolean;
    try {
      revoked = await deps.ledger.revokeApproval(requestId, now, atomic ? events : undefined);
    } catch (error) {
      // Maybe only the reply was lost: a request that read revocable and now reads revoked was
      // revoked (by this step, or by another approver at the same moment: either way it stands).
      const revokedNow = async () => view.request.status !== 'revoked' && (await deps.ledger.getApprovalRequest(requestId))?.status === 'revoked';
      const settled = await settleLostWrite(async () => ((await revokedNow()) ? true : undefined), error);
      if (settled.settled === 'not_written') throw error;
      if (settled.settled === 'unknown') return { ok: false, reason: 'outcome_unknown', message: settled.message };
      revoked = true;
    }
    if (!revoked) return { ok: false, reason: 'not_revocable', message: `request is ${view.status}` };
    emit(deps.events, { type: 'revoked', at: now, requestId, approver: approver.id, ...callIds(view.proposal) });
    // Two steps only with an unrelated audit log: like a decision, the revocation stands even if its record cannot be written, and says so.
    const audited = atomic || (await appendAfterEffect(deps.audit, events(true)));
    const request = { ...view.request, status: 'revoked' as const };
    return audited ? { ok: true, request } : { ok: true, request, auditRecorded: false };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
}
