import type { AuditEvent } from '../../audit/types.ts';
import type { Proposal } from '../../ledger/types.ts';
import { eventAbout } from '../common/call-records.ts';

/** The `dispatch` record of a consumed call (built by assignment: it is on every dispatch). */
export function dispatchEvent(proposal: Proposal, at: number, approval: { requestId: string; tokenId: string } | undefined): AuditEvent {
  const event = eventAbout(proposal, 'dispatch', at);
  if (approval !== undefined) {
    event.requestId = approval.requestId;
    event.detail = { tokenId: approval.tokenId };
  }
  return event;
}
