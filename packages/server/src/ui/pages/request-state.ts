import type { ApprovalView } from '../../views/request-views.ts';
import { html } from 'hono/html';
import { relativeTo } from '../format.ts';
import type { Html } from '../html.ts';
import { timeHtml } from '../time-html.ts';

/** How a request reads right now: one banner that matches its real state, and what the call card is called. */
export interface RequestState {
  /** The banner's colour: waiting (yellow), done and fine (green), stopped (red), neutral (grey). */
  tone: 'wait' | 'ok' | 'stop' | 'neutral';
  title: string;
  /** Plain words, or markup whose times are `<time>` elements (shown in the viewer's zone by page.js). */
  text: string | Html;
  /** Heading of the card holding the call. */
  callHeading: string;
  /** The request can still change by itself (expire): show its countdown. Closed states have none. */
  live: boolean;
}

type Describe = (view: ApprovalView, now: number) => RequestState;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Keyed by the status string, so a status added later (e.g. `edited`) gets its own entry
 * here and, until then, the neutral fallback: never another state's words.
 */
const STATES: Readonly<Record<string, Describe>> = {
  pending: (view, now) => {
    const { approvals, requiredApprovals } = view;
    const left = requiredApprovals - approvals;
    return {
      tone: 'wait',
      title: approvals === 0 ? 'Waiting for approval' : `${approvals} of ${plural(requiredApprovals, 'approval')} recorded`,
      text: html`${approvals === 0 ? `Needs ${plural(requiredApprovals, 'approval')}` : `Needs ${left} more`} before it can run. Nothing has run. Expires ${relativeTo(view.expiresAt, now)} (${timeHtml(view.expiresAt)}).`,
      callHeading: 'What will run if approved',
      live: true,
    };
  },
  approved: (view, now) => ({
    tone: 'ok',
    title: 'Approved — not run yet',
    text: html`${view.approvals} of ${plural(view.requiredApprovals, 'approval')} recorded. The agent may run this exact call once, until ${timeHtml(view.expiresAt)} (${relativeTo(view.expiresAt, now)}).`,
    callHeading: 'What will run',
    live: true,
  }),
  consumed: (view) => ({
    tone: 'ok',
    title: 'Ran',
    text: html`This exact call ran${view.consumedAt === undefined ? '' : html` at ${timeHtml(view.consumedAt)}`}. ${resultText(view)}`,
    callHeading: 'What ran',
    live: false,
  }),
  denied: (view) => {
    const deny = view.decisions.find((d) => d.decision === 'deny');
    if (view.edited !== undefined || deny?.editedProposalId !== undefined) return STATES.edited!(view, 0);
    return {
      tone: 'stop',
      title: 'Denied — nothing ran',
      text: html`${deny === undefined ? 'Denied' : html`Denied by ${deny.approver} at ${timeHtml(deny.at)}`}. The call did not run and will not run.`,
      callHeading: 'Nothing ran — the call that was asked for',
      live: false,
    };
  },
  edited: (view) => ({
    tone: 'neutral',
    title: 'Edited — replaced by another call',
    text: `An approver changed the arguments, so this call did not run and will not run. ${view.edited === undefined ? 'The edited call is its own request.' : 'The edited call is its own request (linked below).'}`,
    callHeading: 'Nothing ran — the call as first asked for',
    live: false,
  }),
  revoked: () => ({
    tone: 'stop',
    title: 'Revoked — nothing ran',
    text: 'The approval was withdrawn before the call ran. Nothing ran, and no token for it will run.',
    callHeading: 'Nothing ran — the call that was asked for',
    live: false,
  }),
  expired: (view) => {
    const wasApproved = view.approvals >= view.requiredApprovals;
    return {
      tone: 'stop',
      title: 'Expired — nothing ran',
      text: wasApproved
        ? html`It was approved but not run before it expired at ${timeHtml(view.expiresAt)}. Nothing ran, and its token is no longer accepted.`
        : html`It expired at ${timeHtml(view.expiresAt)} with ${view.approvals} of ${plural(view.requiredApprovals, 'approval')}. Nothing ran.`,
      callHeading: 'Nothing ran — the call that was asked for',
      live: false,
    };
  },
};

/** A definition review decides whether a tool's new definition is trusted; no call of it runs. */
const REVIEW_STATES: Readonly<Record<string, Describe>> = {
  pending: (view, now) => ({
    ...STATES.pending!(view, now),
    text: html`Needs ${view.requiredApprovals - view.approvals} more approval${view.requiredApprovals - view.approvals === 1 ? '' : 's'} before the new definition is trusted; until then calls to the tool are refused. Expires ${relativeTo(view.expiresAt, now)} (${timeHtml(view.expiresAt)}).`,
  }),
  approved: (view, now) => ({
    ...STATES.approved!(view, now),
    title: 'Approved — the new definition is trusted',
    text: 'Calls to the tool are checked against the new definition from its next use.',
    live: false,
  }),
  denied: (view) => ({
    ...STATES.denied!(view, 0),
    title: 'Denied — the tool stays disabled',
    text: 'The new definition is not trusted: calls to the tool are refused until a definition is approved.',
  }),
};

export function requestState(view: ApprovalView, now: number): RequestState {
  const describe = (view.review === undefined ? undefined : REVIEW_STATES[view.status]) ?? STATES[view.status];
  if (describe !== undefined) return describe(view, now);
  return {
    tone: 'neutral',
    title: `Status: ${view.status}`,
    text: 'This page does not know this status yet; check the audit log for what happened to the call.',
    callHeading: 'The call that was asked for',
    live: false,
  };
}

function resultText(view: ApprovalView): string | Html {
  const result = view.call.result;
  if (result === undefined) return 'Its result was not reported.';
  return result.status === 'succeeded' ? html`The tool reported success (${timeHtml(result.at)}).` : html`The tool reported a failure (${timeHtml(result.at)}).`;
}
