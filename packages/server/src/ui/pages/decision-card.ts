import { html } from 'hono/html';
import type { ApprovalView } from '../../views/request-views.ts';
import { shown } from '../display-html.ts';
import { formatTime, relativeTo } from '../format.ts';
import type { Html } from '../html.ts';
import { callSummaries } from '../summary/call-summary.ts';
import { summaryHtml } from '../summary/summary-html.ts';

export interface DecisionCardProps {
  view: ApprovalView;
  now: number;
  csrfToken: string;
  canDecide: boolean;
  /** The signed-in approver approved this request and it still waits for more approvals: they may take theirs back. */
  canWithdraw?: boolean | undefined;
  /** The expiry is still ahead and still matters (pending or approved, not run). */
  live: boolean;
}

/**
 * The top of a request page: what is asked in one line (tool, key arguments, the agent
 * and the principal, the deadline), where the approvals stand, and the Approve and Deny
 * buttons, so an approver decides from the first screen. The detail below stays the
 * evidence: every value whole, the exact JSON, the digests.
 */
export function decisionCard(props: DecisionCardProps): Html {
  const { view, now } = props;
  const action = `/requests/${encodeURIComponent(view.requestId)}/decision`;
  const review = view.review !== undefined;
  const summary = review ? undefined : callSummaries([view]).get(view.requestId);
  return html`<section class="card decide-first" id="decision-summary" aria-label="Summary${props.canDecide ? ' and decision' : ''}">
${review ? '' : html`<p class="summary-line" id="summary-line"><code>${shown(view.call.toolName)}</code> ${summaryHtml(summary)}</p>`}
<p class="asked-by">${askedBy(view)}${
    props.live ? html` · expires <span id="summary-expiry" title="${formatTime(view.expiresAt)}">${relativeTo(view.expiresAt, now)}</span>` : ''
  }</p>
${approvalProgress(view)}
${props.canWithdraw === true ? withdrawForm(action, props.csrfToken) : ''}
${props.canDecide ? actions(action, props.csrfToken, review) : ''}
</section>`;
}

/** The agent that asked and the user it acts for; a definition review names who registered the definition. */
function askedBy(view: ApprovalView): Html {
  if (view.review !== undefined) {
    const kind = view.review.previous === undefined && view.review.previousDigest === undefined ? 'A new tool' : 'A changed definition';
    const source =
      view.review.registeredBy === undefined
        ? html`, as its server describes it now`
        : html`, registered by agent <strong id="summary-agent">${shown(view.review.registeredBy)}</strong>`;
    return html`${kind}: <code>${shown(view.review.toolName)}</code>${source}`;
  }
  return html`Asked by agent <strong id="summary-agent">${shown(view.call.agent)}</strong> for <strong id="summary-principal">${shown(view.call.principal)}</strong>`;
}

/**
 * k of n: who approved so far and who is still needed. One line for a single-approver
 * rule that nobody decided yet would say nothing the buttons do not: it is left out.
 */
function approvalProgress(view: ApprovalView): Html | string {
  const approvedBy = [...new Set(view.decisions.filter((d) => d.decision === 'approve' && d.editedProposalId === undefined).map((d) => d.approver))];
  if (view.requiredApprovals <= 1 && approvedBy.length === 0) return '';
  const left = Math.max(0, view.requiredApprovals - view.approvals);
  const names = (list: readonly string[]) => list.map((a, i) => html`${i > 0 ? ', ' : ''}<strong>${shown(a)}</strong>`);
  const namedLeft = (view.eligible.approvers ?? []).filter((a) => !approvedBy.includes(a));
  const from = [
    namedLeft.length > 0 ? html`${names(namedLeft)}` : '',
    view.eligible.roles?.length ? html`${namedLeft.length > 0 ? ' or ' : ''}anyone with the role ${view.eligible.roles.map((r, i) => html`${i > 0 ? ' or ' : ''}<strong>${shown(r)}</strong>`)}` : '',
    view.eligible.principalSelf === true ? html` or the user the agent acts for` : '',
  ];
  const waiting = view.status === 'pending' && left > 0;
  return html`<p class="progress" id="approval-progress"><span class="badge ${waiting ? 'pending' : 'approved'}">${view.approvals} of ${view.requiredApprovals}</span> ${
    approvedBy.length === 0 ? 'No approvals yet.' : html`Approved by ${names(approvedBy)}.`
  }${waiting ? html` <span id="still-needed">Waiting for ${left} more approval${left === 1 ? '' : 's'}, from ${from}.</span>` : ''}</p>`;
}

function actions(action: string, csrf: string, review: boolean): Html {
  return html`<div class="decide-now" id="decide-now">
<form method="post" action="${action}" class="approve-form">
<input type="hidden" name="csrf" value="${csrf}">
<button class="primary" type="submit" name="action" value="approve">${review ? 'Approve this definition' : 'Approve this call'}</button>
</form>
<form method="post" action="${action}" class="deny-form">
<input type="hidden" name="csrf" value="${csrf}">
<label for="deny-reason" class="sr-only">Reason for denying (optional)</label>
<input type="text" id="deny-reason" name="reason" maxlength="1000" placeholder="Reason (optional)">
<button class="danger" type="submit" name="action" value="deny">Deny</button>
</form>
</div>
<p class="hint">${review ? html`Approving trusts exactly the definition shown below.` : html`This approves exactly the call below: every <a href="#what-runs">argument</a>, the <a href="#exact-call">exact JSON</a>. <a href="#edit-section">Edit the arguments</a> instead.`}</p>`;
}

/** My approval of a request still waiting for others: take it back before the last one comes (same form and CSRF token as a decision). */
function withdrawForm(action: string, csrf: string): Html {
  return html`<form method="post" action="${action}" class="withdraw-form" id="withdraw-form">
<input type="hidden" name="csrf" value="${csrf}">
<button class="secondary" type="submit" name="action" value="withdraw">Withdraw my approval</button>
<span class="hint">The request stays open; your approval no longer counts until you approve again.</span>
</form>`;
}
