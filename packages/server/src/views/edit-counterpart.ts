import { type Approver, mayDecide } from '@countersign/core/gate';
import type { Services } from '../app/services.ts';
import type { ApprovalView } from './request-views.ts';

/** The other side of an approve-with-edits, as far as this approver may see it. */
export interface EditCounterpart {
  /** `original`: this page shows the edited call; `edited`: this page shows the original. */
  role: 'original' | 'edited';
  requestId: string;
  canonicalArguments: string;
}

/**
 * For an edited call, its original; for an original, its edit: read from the ledger by
 * the proposal link the gate recorded, never from the page. Only a request this approver
 * may decide is returned (the same rule as opening it), so the diff leaks nothing the
 * link would not; otherwise, or when the store cannot say, undefined (the page then names
 * the other request without its arguments).
 */
export async function editCounterpart(services: Services, approver: Approver, view: ApprovalView): Promise<EditCounterpart | undefined> {
  const role = view.call.parentProposalId !== undefined ? 'original' : view.edited !== undefined ? 'edited' : undefined;
  if (role === undefined) return undefined;
  const found =
    role === 'original'
      ? await services.gate.approvals.viewOfCall(view.call.parentProposalId!).catch(() => undefined)
      : await services.gate.approvals.view(view.edited!.requestId).catch(() => undefined);
  if (found?.ok !== true) return undefined;
  const { request, proposal } = found.view;
  if (!mayDecide(request.eligible, approver, proposal.principal)) return undefined;
  return { role, requestId: request.requestId, canonicalArguments: proposal.canonicalArgs };
}
