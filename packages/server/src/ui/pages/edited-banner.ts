import { html } from 'hono/html';
import type { ApprovalView } from '../../views/request-views.ts';
import type { Html } from '../html.ts';

/**
 * The banner of a request an approver replaced with an edited call (approve-with-edits):
 * it reads "Edited", never "denied", and links the request that replaced it. The link
 * comes from the ledger (the closing decision's edited proposal), never from the page.
 */
export function editedBanner(view: Pick<ApprovalView, 'status' | 'edited'>): Html | '' {
  if (view.edited === undefined) return '';
  const href = `/requests/${encodeURIComponent(view.edited.requestId)}`;
  return html`<p class="notice info" id="edited-banner"><strong>Edited</strong> — replaced by <a href="${href}" id="edited-link">request <span class="mono">${view.edited.requestId}</span></a>. The original call will not run; the agent runs the edited call.</p>`;
}
