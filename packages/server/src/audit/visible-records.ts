import type { AuditRecord } from '@countersign/core/audit';
import { type Approver, mayDecide } from '@countersign/core/gate';
import type { Services } from '../app/services.ts';

/** The role that reads the whole audit trail (the API and the audit page); every other approver reads their part. */
export const AUDITOR_ROLE = 'auditor';

/**
 * The records of a page `viewer` may read. An auditor reads them all. Any other approver
 * reads what they may decide: the records of a call whose approval request lists them
 * as eligible (its proposal, decisions and their passkey assertions, dispatch), and their
 * own passkey registrations and removals; not other approvers' ceremonies, nor calls they
 * could never decide. Records about no call (checkpoints, tool definitions) stay readable:
 * the chain's shape is no secret, and `chain` already reports whether it verifies.
 */
export async function visibleRecords(services: Services, viewer: Approver, records: readonly AuditRecord[]): Promise<AuditRecord[]> {
  if (viewer.roles?.includes(AUDITOR_ROLE) === true) return [...records];
  const decidable = new Map<string, Promise<boolean>>();
  const mayRead = (proposalId: string) => {
    let found = decidable.get(proposalId);
    if (found === undefined) {
      found = services.gate.approvals.viewOfCall(proposalId).then((view) => view.ok && mayDecide(view.view.request.eligible, viewer, view.view.proposal.principal));
      decidable.set(proposalId, found);
    }
    return found;
  };
  const visible: AuditRecord[] = [];
  for (const record of records) {
    if (record.type === 'passkey_registered' || record.type === 'passkey_removed') {
      if (record.detail?.approver === viewer.id) visible.push(record);
    } else if (record.proposalId !== undefined) {
      if (await mayRead(record.proposalId)) visible.push(record);
    } else {
      visible.push(record);
    }
  }
  return visible;
}
