import { html } from 'hono/html';
import { shown } from '../display-html.ts';
import type { Html } from '../html.ts';
import type { CallSummary } from './call-summary.ts';

/** A call's one-line summary (`amount: 250, to: "erin" +2 more`), as the list and the request page show it. */
export function summaryHtml(summary: CallSummary | undefined): Html | string {
  if (summary === undefined) return '';
  if (summary.fields.length === 0) return html`<span class="muted">no arguments</span>`;
  return html`<span class="call-summary">${summary.fields.map(
    (f, i) => html`${i > 0 ? ', ' : ''}<span class="field"><span class="key">${shown(f.label)}</span>: ${shown(f.text)}</span>`,
  )}${summary.more > 0 ? html` <span class="muted">+${summary.more} more</span>` : ''}</span>`;
}
