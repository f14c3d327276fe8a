import type { DefinitionReviewView } from '@countersign/core/gate';
import type { ToolDefinition } from '@countersign/core';
import { html } from 'hono/html';
import { shown, shownJson } from '../display-html.ts';
import type { Html } from '../html.ts';

/**
 * A definition review: the trusted definition and the new one side by side, both read
 * from the store by digest and shown with the same escapes as a call's arguments (a
 * description is text the model reads as instructions: nothing in it may hide).
 */
export function reviewSection(review: DefinitionReviewView): Html {
  return html`<section class="card" aria-labelledby="definition-review">
<h2 id="definition-review">Tool definition changed: <code>${shown(review.toolName)}</code></h2>
<p class="notice error" role="alert" id="definition-review-notice">Calls to this tool are refused until the new definition is approved. Approving trusts the new definition; denying disables the tool.${review.pin === undefined ? '' : html` Pin now: <strong id="pin-status">${review.pin}</strong>.`}</p>
<div class="side-by-side">
${column('Trusted until now', 'previous-definition', review.previousDigest, review.previous, 'none: the tool had no trusted definition')}
${column('New definition', 'new-definition', review.digest, review.next, 'not recorded in the store')}
</div>
</section>`;
}

function column(title: string, id: string, digest: string | undefined, definition: ToolDefinition | undefined, missing: string): Html {
  return html`<div class="column" id="${id}">
<h3>${title}</h3>
<p class="mono">${digest ?? ''}</p>
${definition === undefined ? html`<p>${missing}</p>` : html`<pre class="args">${shownJson(definition)}</pre>`}
</div>`;
}
