import type { DeliveredEvent } from '@countersign/core/events';
import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { RequestStatusFilter } from '../../api/schemas.ts';
import { eligibleView } from '../../approvals/eligible-view.ts';
import { approvalView, requestFingerprint } from '../../views/request-views.ts';
import { readListingVersion } from '../listing.ts';
import { pageApprover, requirePageApprover } from '../page-auth.ts';
import { followVersion } from './follow-version.ts';

/**
 * Events that can change a listing: anything about a request (opened, decided, edited,
 * revoked, consumed) and a resync. Allowed calls, which never open a request, do not wake
 * the stream; expiry is a matter of time and is caught by the periodic re-read.
 */
function changesListings(event: DeliveredEvent): boolean {
  return event.type === 'resync' || ('requestId' in event && event.requestId !== undefined);
}

/**
 * GET /events/approvals?status=&version=: the list page's stream; `changed` once the
 * approver's listing differs from `version`, then the script reloads the list and reconnects.
 * GET /events/requests/:id?version=: the request page's stream; `changed` once the request
 * (status, decisions, the call's result) differs from what the page showed: decided, ran,
 * failed, expired, edited or revoked, here or on another replica.
 */
export function listEventsRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/events/approvals', requirePageApprover(services), async (c) => {
    const approver = pageApprover(c).approver;
    const parsed = RequestStatusFilter.safeParse(c.req.query('status') || 'pending');
    const status = parsed.success ? parsed.data : 'pending';
    return followVersion(c, services, {
      since: c.req.query('version') ?? '',
      read: () => readListingVersion(services, approver, status),
      wakesOn: changesListings,
    });
  });
  routes.get('/events/requests/:id', requirePageApprover(services), async (c) => {
    const approver = pageApprover(c).approver;
    const requestId = c.req.param('id');
    // Not found or not the approver's: refused here, before the stream opens.
    const first = await approvalView(services.gate, await eligibleView(services, approver, requestId));
    const proposalId = first.call.proposalId;
    return followVersion(c, services, {
      since: c.req.query('version') ?? '',
      read: async () => requestFingerprint(await approvalView(services.gate, await eligibleView(services, approver, requestId))),
      wakesOn: (event) => event.type === 'resync' || ('requestId' in event && event.requestId === requestId) || ('proposalId' in event && event.proposalId === proposalId),
    });
  });
  return routes;
}
