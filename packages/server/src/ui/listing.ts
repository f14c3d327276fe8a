import { createHash } from 'node:crypto';
import type { Approver, RequestView } from '@countersign/core/gate';
import type { ApprovalStatus } from '@countersign/core/ledger';
import type { Services } from '../app/services.ts';
import { ApiError } from '../errors/api-error.ts';
import { type ApprovalView, approvalView } from '../views/request-views.ts';

/** How many requests a list page shows (the store applies eligibility before this limit). */
export const LIST_LIMIT = 200;

export interface Listing {
  /** Newest first. */
  views: ApprovalView[];
  /** Changes whenever a request joins or leaves the list, or gets a decision. */
  version: string;
}

async function listed(services: Services, approver: Approver, status: ApprovalStatus): Promise<RequestView[]> {
  const result = await services.gate.approvals.listFor(approver, status, LIST_LIMIT);
  if (!result.ok) throw new ApiError('store_unavailable', 'the approval store is unavailable');
  return result.views;
}

/** The requests `approver` may decide with this effective status, newest first, and a fingerprint of them. */
export async function readListing(services: Services, approver: Approver, status: ApprovalStatus): Promise<Listing> {
  const found = await listed(services, approver, status);
  const views = await Promise.all(found.map((v) => approvalView(services.gate, v)));
  views.sort((a, b) => b.createdAt - a.createdAt || (a.requestId < b.requestId ? 1 : -1));
  return { views, version: listingVersion(found) };
}

/** Only the fingerprint (no views built): what the live stream re-reads at every poll. */
export async function readListingVersion(services: Services, approver: Approver, status: ApprovalStatus): Promise<string> {
  return listingVersion(await listed(services, approver, status));
}

/** Order-independent: the same requests, statuses and decision counts give the same version. */
function listingVersion(views: readonly RequestView[]): string {
  const lines = views.map((v) => `${v.request.requestId}\u0000${v.status}\u0000${v.request.decisions.length}\n`).sort();
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line);
  return hash.digest('hex').slice(0, 32);
}
