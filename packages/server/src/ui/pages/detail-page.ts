import { html } from 'hono/html';
import { type ApprovalView, requestFingerprint } from '../../views/request-views.ts';
import { displayWarnings, shown, shownJson, shownText } from '../display-html.ts';
import { prettyArguments, relativeTo } from '../format.ts';
import { timeHtml } from '../time-html.ts';
import type { Html } from '../html.ts';
import { type LayoutProps, layout } from '../layout.ts';
import { decisionCard } from './decision-card.ts';
import { editFields } from './edit-fields.ts';
import { editedBanner } from './edited-banner.ts';
import { editDiff } from './edit-diff.ts';
import type { EditCounterpart } from '../../views/edit-counterpart.ts';
import { agentWordsCard, callCard, exactCallCard, whyAskedCard } from './call-card.ts';
import { requestState } from './request-state.ts';
import { reviewSection } from './review-section.ts';
import { passkeySection } from './passkey-section.ts';

export interface DetailPageProps {
  user: NonNullable<LayoutProps['user']>;
  view: ApprovalView;
  now: number;
  /** Synchronizer token for this session's forms. */
  csrfToken: string;
  /** The signed-in approver may still decide (pending, not decided by them yet). */
  canDecide: boolean;
  /** The signed-in approver may withdraw this approval (approved, not yet used). */
  canRevoke?: boolean | undefined;
  /** The signed-in approver approved this request, which still waits for more approvals. */
  canWithdraw?: boolean | undefined;
  notice?: string | undefined;
  error?: { code: string; message: string } | undefined;
  /** The other side of an approve-with-edits, when this approver may see it. */
  edit?: EditCounterpart | undefined;
  /** What the approver typed into the edit box, shown again after a refused edit. */
  editText?: string | undefined;
}

export function detailPage(props: DetailPageProps): Html {
  const { view, now } = props;
  const call = view.call;
  // The edit box holds the same escapes as the page: valid JSON for the same value, nothing hidden.
  const editable = prettyArguments(call.canonicalArguments);
  const action = `/requests/${encodeURIComponent(view.requestId)}/decision`;
  const state = requestState(view, now);
  return layout({
    title: `${shownText(call.toolName)} request`,
    user: props.user,
    current: 'pending',
    body: html`${heading(view, props.canDecide)}
<p class="lead"><span class="badge ${view.status}">${view.status}</span>
· ${view.approvals} of ${view.requiredApprovals} approval${view.requiredApprovals === 1 ? '' : 's'}</p>
<p class="hint" id="request-follow" aria-live="polite" data-follow="/events/requests/${encodeURIComponent(view.requestId)}?version=${encodeURIComponent(requestFingerprint(view))}"></p>
<div class="state ${state.tone}" id="state-banner" data-state="${view.status}"><strong>${state.title}</strong> <span>${state.text}</span></div>
${props.notice === undefined ? '' : html`<p class="notice ok" role="status">${props.notice}</p>`}
${props.error === undefined ? '' : html`<div class="notice error" role="alert" id="decision-error"><strong>Not recorded.</strong> <span class="mono">${props.error.code}</span>: ${props.error.message}</div>`}
${displayWarnings(view.display)}
${decisionCard({ view, now, csrfToken: props.csrfToken, canDecide: props.canDecide, canWithdraw: props.canWithdraw, live: state.live })}
${editDiff(view, props.edit)}
${editedBanner(view)}

${view.review === undefined ? '' : reviewSection(view.review)}
${callCard(view, state.callHeading, definitionWarning(call.definition))}
${view.review === undefined ? agentWordsCard(call.context) : ''}
${view.review === undefined ? whyAskedCard(view) : ''}
${exactCallCard(view)}

<section class="card" aria-labelledby="who-asked">
<h2 id="who-asked">Who asked</h2>
<dl class="facts">
${view.review === undefined ? callOrigin(call) : reviewOrigin(view.review)}
<dt>Requested</dt><dd>${timeHtml(view.createdAt)} (${relativeTo(view.createdAt, now)})</dd>
<dt>${state.live ? 'Expires' : 'Deadline was'}</dt><dd>${timeHtml(view.expiresAt)}${state.live ? ` (${relativeTo(view.expiresAt, now)})` : ''}</dd>
</dl>
</section>

<section class="card" aria-labelledby="decisions-so-far">
<h2 id="decisions-so-far">Decisions so far</h2>
${
  view.decisions.length === 0
    ? html`<p>None yet.</p>`
    : html`<ul class="decisions">${view.decisions.map(
        (d) => html`<li><strong>${shown(d.approver)}</strong> ${d.editedProposalId === undefined ? (d.decision === 'approve' ? 'approved' : 'denied') : 'replaced it with an edited call'} at ${timeHtml(d.at)}${d.reason === undefined ? '' : html` — “${shown(d.reason)}”`}</li>`,
      )}</ul>`
}
</section>

${props.canRevoke === true ? revokeForm(action, props.csrfToken) : ''}
${passkeySection(view, props.canDecide)}
${props.canDecide && view.review === undefined ? editSection(action, props.csrfToken, props.editText ?? editable, props.error !== undefined, editFields(call.definition.definition?.inputSchema, call.canonicalArguments)) : ''}`,
  });
}

/** Who asked for a call: the agent, the user it acts for, and the ids that trace it. */
function callOrigin(call: ApprovalView['call']): Html {
  return html`<dt>Agent</dt><dd id="agent">${shown(call.agent)}</dd>
<dt>Principal</dt><dd id="principal">${shown(call.principal)}</dd>
<dt>Run</dt><dd class="mono">${shown(call.runId)}</dd>
<dt>Session</dt><dd class="mono">${shown(call.sessionId)}</dd>
<dt>Call id</dt><dd class="mono">${shown(call.callId)}</dd>
<dt>Proposal</dt><dd class="mono">${shown(call.proposalId)}</dd>
${call.responseRef === undefined ? '' : html`<dt>Model response</dt><dd class="mono">${shown(call.responseRef)}</dd>`}`;
}

/**
 * Who asked for a definition review: the agent that registered the definition, or its
 * server. The review's own run and call ids are internal bookkeeping, not shown.
 */
function reviewOrigin(review: NonNullable<ApprovalView['review']>): Html {
  return html`<dt>Registered by</dt><dd id="agent">${review.registeredBy === undefined ? html`the tool's server or catalogue (no agent registered it)` : html`agent ${shown(review.registeredBy)}`}</dd>
<dt>Tool</dt><dd class="mono">${shown(review.toolName)}</dd>`;
}

/** A call whose tool is not the one pinned when it was proposed cannot run: say so first. */
function definitionWarning(definition: ApprovalView['call']['definition']): Html | string {
  if (definition.status === 'changed') {
    return html`<div class="notice error" role="alert" id="definition-changed"><p>The tool's definition changed after this call was proposed${definition.pin === undefined ? '' : html` (pin: <strong>${definition.pin}</strong>)`}. The call cannot run; approving it has no effect.</p>
${definition.current === undefined ? '' : html`<details><summary>The tool's definition now${definition.currentDigest === undefined ? '' : html` (<span class="mono">${definition.currentDigest}</span>)`}</summary><pre class="args" id="current-definition">${shownJson(definition.current)}</pre></details>`}</div>`;
  }
  if (definition.status === 'unknown_tool') {
    return html`<p class="notice error" role="alert" id="definition-changed">No tool with this name is registered here; the call cannot run.</p>`;
  }
  return '';
}

/**
 * What is being decided, in words: a definition review names the tool whose definition
 * changed (its internal review "call" would only confuse), a call names the tool that runs.
 */
function heading(view: ApprovalView, canDecide: boolean): Html {
  // A question only for whoever can still answer it: after my approval of a 2-of-2 it is a statement.
  const pending = view.status === 'pending' && canDecide;
  if (view.review !== undefined) {
    return html`<h1>${pending ? 'Trust the new definition of ' : 'New definition of '}<code>${shown(view.review.toolName)}</code>${pending ? '?' : ''}</h1>`;
  }
  return html`<h1>${pending ? 'Approve a call to ' : 'Call to '}<code>${shown(view.call.toolName)}</code>${pending ? '?' : ''}</h1>`;
}

/** Approve-with-edits, below the evidence: the Approve and Deny buttons are at the top (decision card). */
function editSection(action: string, csrf: string, editText: string, hasError: boolean, fields: Html | string): Html {
  return html`<section aria-labelledby="edit-heading" id="edit-section">
<h2 id="edit-heading">Or change the arguments</h2>
<div class="actions">${editForm(action, csrf, editText, hasError, fields)}</div>
</section>`;
}

/** `fields`: one per argument, from the tool's input schema (see editFields); they fill the JSON, which is what is sent. */
function editForm(action: string, csrf: string, editText: string, hasError: boolean, fields: Html | string): Html {
  return html`<details${hasError ? html` open` : ''}>
<summary>Edit the arguments, then approve</summary>
<form method="post" action="${action}" novalidate>
<input type="hidden" name="csrf" value="${csrf}">
${fields}
<label for="edited-arguments">Arguments (JSON)${fields === '' ? '' : html` <span class="muted">— the same arguments as the fields above: edit either (nested values only here)</span>`}</label>
<textarea id="edited-arguments" name="arguments" spellcheck="false"${hasError ? html` aria-describedby="decision-error"` : ''}>
${editText}</textarea>
${fields === '' ? '' : html`<span class="field-error" id="edited-arguments-error" aria-live="polite"></span>`}
<p class="hint">The server parses this strictly (no duplicate keys, exact numbers). The edited call is recorded as a new proposal linked to this one, and only it is approved.</p>
<label for="edit-reason">Reason (optional)</label>
<input type="text" id="edit-reason" name="reason" maxlength="1000">
<button class="secondary" type="submit" name="action" value="edit">Approve edited call</button>
</form>
</details>`;
}

/** An approved call has not run yet: the approver can still withdraw it (same form and CSRF token as a decision). */
function revokeForm(action: string, csrf: string): Html {
  return html`<section aria-labelledby="revoke">
<h2 id="revoke">Withdraw this approval</h2>
<form method="post" action="${action}">
<input type="hidden" name="csrf" value="${csrf}">
<p>The call has not run yet. Revoking stops it: a token the agent already holds is refused.</p>
<button class="danger" type="submit" name="action" value="revoke">Revoke approval</button>
</form>
</section>`;
}
