import type { DefinitionReviewView } from '@countersign/core/gate';
import type { ToolDefinition } from '@countersign/core';
import { html } from 'hono/html';
import { shown, shownJson } from '../display-html.ts';
import type { Html } from '../html.ts';
import { definitionDiff } from './definition-diff.ts';

/**
 * A definition review: the trusted definition and the new one side by side, both read
 * from the store by digest and shown with the same escapes as a call's arguments (a
 * description is text the model reads as instructions: nothing in it may hide).
 */
export function reviewSection(review: DefinitionReviewView): Html {
  const first = review.previous === undefined && review.previousDigest === undefined;
  return html`<section class="card" aria-labelledby="definition-review">
<h2 id="definition-review">${first ? 'New tool: ' : 'Tool definition changed: '}<code>${shown(review.toolName)}</code></h2>
<p class="notice error" role="alert" id="definition-review-notice">Calls to this tool are refused until ${first ? 'its definition' : 'the new definition'} is approved. Approving trusts ${first ? 'this definition' : 'the new definition'}; denying disables the tool.${review.pin === undefined ? '' : html` Pin now: <strong id="pin-status">${review.pin}</strong>.`}</p>
${review.next === undefined ? html`<p>The new definition is not recorded in the store.</p>` : definitionDiff(review.previous, review.next)}
<details${first ? html` open` : ''}><summary>${first ? 'The definition in full' : 'Both definitions in full'}</summary>
<div class="side-by-side">
${first ? '' : column('Trusted until now', 'previous-definition', review.previousDigest, review.previous, 'none: the tool had no trusted definition')}
${column(first ? 'Definition' : 'New definition', 'new-definition', review.digest, review.next, 'not recorded in the store')}
</div>
</details>
</section>`;
}
function column(title: string, id: string, digest: string | undefined, definition: ToolDefinition | undefined, missing: string): Html {
  return html`<div class="column" id="${id}">
<h3>${title}</h3>
<p class="mono">${digest ?? ''}</p>
${definition === undefined ? html`<p>${missing}</p>` : html`<pre class="args">${shownJson(definition)}</pre>`}
</div>`;
}
