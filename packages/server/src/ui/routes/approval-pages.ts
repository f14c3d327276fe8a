import type { DecisionInput } from '@countersign/core/gate';
import type { ApprovalStatus } from '@countersign/core/ledger';
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { RequestStatusFilter } from '../../api/schemas.ts';
import { submitDecision } from '../../approvals/submit-decision.ts';
import { eligibleView } from '../../approvals/eligible-view.ts';
import { revokeRequest } from '../../approvals/revoke.ts';
import { withdrawApproval } from '../../approvals/withdraw.ts';
import { ApiError } from '../../errors/api-error.ts';
import { type EditCounterpart, editCounterpart } from '../../views/edit-counterpart.ts';
import { type ApprovalView, approvalView } from '../../views/request-views.ts';
import { csrfTokenFor, layoutUser, pageApprover, readCheckedForm, requirePageApprover } from '../page-auth.ts';
import { detailPage } from '../pages/detail-page.ts';
import { shownText } from '../display-html.ts';
import { pendingPage } from '../pages/pending-page.ts';
import { PASSKEY_FIELD, passkeyAssertionFromForm } from './passkey-form.ts';
import { readListing } from '../listing.ts';
import { listEventsRoutes } from './list-events.ts';

const NOTICES: Record<string, string> = {
  approved: 'Your approval was recorded.',
  denied: 'You denied this call. It will not run.',
  edited: 'Your edited call was recorded and approved. The original call will not run.',
  revoked: 'You revoked this approval. The call will not run.',
  withdrawn: 'You withdrew your approval. The request stays open for the others; approve again if you change your mind.',
  edited_pending:
    'Your edited call was recorded and now waits for the approvals its own policy rule requires. The original call will not run.',
};
/** Added to the notice when the decision took effect but the audit log did not record it. */
const UNAUDITED = ' Warning: the audit log could not record this decision; tell your administrator.';

/**
 * GET / (requests to decide), GET /requests/:id (the exact call), POST /requests/:id/decision
 * (action approve, deny, edit or revoke).
 */
export function approvalPages(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const signedIn = requirePageApprover(services);
  routes.route('/', listEventsRoutes(services));

  routes.get('/', signedIn, async (c) => {
    const identity = pageApprover(c);
    const parsed = RequestStatusFilter.safeParse(c.req.query('status') || 'pending');
    const status: ApprovalStatus = parsed.success ? parsed.data : 'pending';
    const listing = await readListing(services, identity.approver, status);
    const tools = [...new Set(listing.views.map(toolOf))].sort();
    // Only a tool on the list filters it, named as the page shows it (escapes as text, so no
    // hidden character reaches a URL or an attribute): anything else is ignored, not echoed.
    const asked = c.req.query('tool');
    const tool = asked === undefined ? undefined : tools.find((t) => shownText(t) === asked);
    const approvals = tool === undefined ? listing.views : listing.views.filter((v) => toolOf(v) === tool);
    return c.html(pendingPage({ user: layoutUser(services, identity), status, approvals, tools, tool, now: services.gate.now(), version: listing.version }));
  });
  routes.get('/requests/:id', signedIn, async (c) => {
    const identity = pageApprover(c);
    const view = await approvalView(services.gate, await eligibleView(services, identity.approver, c.req.param('id')));
    const done = c.req.query('done');
    const notice = done === undefined ? undefined : NOTICES[done];
    const unaudited = notice !== undefined && c.req.query('audit') === 'missing';
    const edit = await editCounterpart(services, identity.approver, view);
    return c.html(renderDetail(services, identity, view, { notice: unaudited ? `${notice}${UNAUDITED}` : notice, edit }));
  });

  routes.post('/requests/:id/decision', signedIn, async (c) => {
    const identity = pageApprover(c);
    const requestId = c.req.param('id');
    const form = await readCheckedForm(c, services, ['action', 'reason', 'arguments', PASSKEY_FIELD]);
    const reason = form.reason === undefined || form.reason.trim() === '' ? undefined : form.reason;
    if (form.action === 'revoke') return revokeFromPage(c, services, identity, requestId, reason, 'revoke');
    if (form.action === 'withdraw') return revokeFromPage(c, services, identity, requestId, reason, 'withdraw');
    let input: DecisionInput;
    switch (form.action) {
      case 'approve':
        input = { requestId, decision: 'approve', reason };
        break;
      case 'deny':
        input = { requestId, decision: 'deny', reason };
        break;
      case 'edit':
        // The text goes to the gate as JSON text: parsed strictly, then canonicalized.
        input = { requestId, decision: 'approve', reason, editedArguments: form.arguments ?? '' };
        break;
      default:
        throw new ApiError('invalid_request', 'unknown action');
    }
    if (reason !== undefined && reason.length > 1000) throw new ApiError('invalid_request', 'reason is longer than 1000 characters');
    try {
      // Passkey-signed approvals (passkey.js fills the field): the gate verifies it against the ledger's call.
      const assertion = passkeyAssertionFromForm(form);
      if (assertion !== undefined) input = { ...input, passkeyAssertion: assertion };
      const outcome = await submitDecision(services, identity.approver, input);
      const audit = outcome.auditRecorded === false ? '&audit=missing' : '';
      const edited = outcome.editedRequest;
      if (edited !== undefined) {
        // The edited call may need other approvers (its own rule), whom the editor may not be:
        // then they stay on the original, closed request, which links to the edit.
        const decidedByEditor = edited.decisions.some((d) => d.approver === identity.approver.id);
        const target = decidedByEditor ? edited.requestId : requestId;
        const done = edited.status === 'approved' ? 'edited' : 'edited_pending';
        return c.redirect(`/requests/${encodeURIComponent(target)}?done=${done}${audit}`, 303);
      }
      return c.redirect(`/requests/${encodeURIComponent(requestId)}?done=${input.decision === 'approve' ? 'approved' : 'denied'}${audit}`, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.code === 'not_found' || error.code === 'store_unavailable') throw error;
      // Show the refusal next to the call, keeping what the approver typed.
      const view = await approvalView(services.gate, await eligibleView(services, identity.approver, requestId));
      const page = renderDetail(services, identity, view, {
        error: { code: error.code, message: error.message },
        editText: form.action === 'edit' ? form.arguments : undefined,
      });
      return c.html(page, error.status);
    }
  });
  return routes;
}

/** A definition review is filed under the tool whose definition changed. */
function toolOf(view: ApprovalView): string {
  return view.review?.toolName ?? view.call.toolName;
}

function renderDetail(
  services: Services,
  identity: ReturnType<typeof pageApprover>,
  view: ApprovalView,
  extra: { notice?: string | undefined; error?: { code: string; message: string } | undefined; editText?: string | undefined; edit?: EditCounterpart | undefined },
) {
  const csrfToken = csrfTokenFor(services, identity) ?? '';
  const canDecide = csrfToken !== '' && view.status === 'pending' && !view.decisions.some((d) => d.approver === identity.approver.id);
  return detailPage({
    user: layoutUser(services, identity),
    view,
    now: services.gate.now(),
    csrfToken,
    canDecide,
    // Only a call: an approved definition review is applied when the tool is next admitted.
    canRevoke: csrfToken !== '' && view.status === 'approved' && view.review === undefined,
    canWithdraw: csrfToken !== '' && view.status === 'pending' && view.decisions.some((d) => d.approver === identity.approver.id && d.decision === 'approve'),
    ...extra,
  });
}

/** Revoke the request, or withdraw my own approval of it: neither carries a reason. */
async function revokeFromPage(
  c: Context<AppEnv>,
  services: Services,
  identity: ReturnType<typeof pageApprover>,
  requestId: string,
  reason: string | undefined,
  action: 'revoke' | 'withdraw',
) {
  // The ledger keeps no reason with a revocation or a withdrawal; the forms send none.
  if (reason !== undefined) throw new ApiError('invalid_request', `a ${action === 'revoke' ? 'revocation' : 'withdrawal'} carries no reason`);
  try {
    const outcome = action === 'revoke' ? await revokeRequest(services, identity.approver, requestId) : await withdrawApproval(services, identity.approver, requestId);
    const audit = outcome.auditRecorded === false ? '&audit=missing' : '';
    return c.redirect(`/requests/${encodeURIComponent(requestId)}?done=${action === 'revoke' ? 'revoked' : 'withdrawn'}${audit}`, 303);
  } catch (error) {
    if (!(error instanceof ApiError) || error.code === 'not_found' || error.code === 'store_unavailable') throw error;
    const view = await approvalView(services.gate, await eligibleView(services, identity.approver, requestId));
    return c.html(renderDetail(services, identity, view, { error: { code: error.code, message: error.message } }), error.status);
  }
}
