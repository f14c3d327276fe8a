import type { ApprovalRequest, ApprovalStatus } from './types.ts';

/** The status a request has at `now`: pending/approved requests past their deadline read as expired. */
export function effectiveStatus(request: ApprovalRequest, now: number): ApprovalStatus {
  if ((request.status === 'pending' || request.status === 'approved') && now >= request.expiresAt) {
    return 'expired';
  }
  return request.status;
}
