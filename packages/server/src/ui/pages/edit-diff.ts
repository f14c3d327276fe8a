import { html } from 'hono/html';
import type { ApprovalView } from '../../views/request-views.ts';
import type { EditCounterpart } from '../../views/edit-counterpart.ts';
import { shown } from '../display-html.ts';
import type { Html } from '../html.ts';
import { argumentLeaves } from '../summary/argument-leaves.ts';
import { leafText } from '../summary/call-summary.ts';

const LEAF_OPTIONS = { depth: 6, limit: 200 };

/**
 * An approve-with-edits from either side: a link to the other request and each value the
 * approver changed, old → new (added and removed values too). Without the counterpart's
 * arguments (not this approver's to see), just the link.
 */
export function editDiff(view: ApprovalView, counterpart: EditCounterpart | undefined): Html | string {
  if (view.call.parentProposalId === undefined && view.edited === undefined) return '';
  const otherId = counterpart?.requestId ?? view.edited?.requestId;
  const link = otherId === undefined ? undefined : html`<a href="/requests/${encodeURIComponent(otherId)}" id="edit-counterpart-link">request <span class="mono">${shown(otherId)}</span></a>`;
  const isEdit = view.call.parentProposalId !== undefined;
  const intro = isEdit
    ? html`This call is an approver's edit of ${link ?? html`proposal <span class="mono">${shown(view.call.parentProposalId!)}</span>`}.`
    : html`The edited call that replaced it: ${link ?? ''}.`;
  // The original's banner links the edit already: without its arguments there is nothing to add.
  if (counterpart === undefined && !isEdit) return '';
  if (counterpart === undefined) return html`<section class="card" id="edit-diff" aria-label="Edited call"><p>${intro}</p></section>`;
  const [before, after] = isEdit ? [counterpart.canonicalArguments, view.call.canonicalArguments] : [view.call.canonicalArguments, counterpart.canonicalArguments];
  const changes = changedValues(before, after);
  return html`<section class="card" id="edit-diff" aria-labelledby="edit-diff-title">
<h2 id="edit-diff-title">What the approver changed</h2>
<p>${intro}</p>
${
  changes.length === 0
    ? html`<p class="muted">No value differs.</p>`
    : html`<ul class="changes">${changes.map(
        (c) =>
          html`<li><code>${shown(c.label === '' ? '(the arguments)' : c.label)}</code>: ${c.before === undefined ? html`<span class="muted">(not set)</span>` : html`<del>${shown(c.before)}</del>`} → ${c.after === undefined ? html`<span class="muted">(removed)</span>` : html`<ins>${shown(c.after)}</ins>`}</li>`,
      )}</ul>`
}
</section>`;
}

interface Change {
  label: string;
  before?: string | undefined;
  after?: string | undefined;
}

/** Values that differ between two argument documents, by path, in the order the new one lists them (removed ones last). */
export function changedValues(beforeArgs: string, afterArgs: string): Change[] {
  const before = argumentLeaves(JSON.parse(beforeArgs), LEAF_OPTIONS).leaves;
  const after = argumentLeaves(JSON.parse(afterArgs), LEAF_OPTIONS).leaves;
  const old = new Map(before.map((leaf) => [leaf.pointer, leaf]));
  const changes: Change[] = [];
  const seen = new Set<string>();
  for (const leaf of after) {
    seen.add(leaf.pointer);
    const was = old.get(leaf.pointer);
    const now = leafText(leaf);
    const then = was === undefined ? undefined : leafText(was);
    if (then !== now) changes.push({ label: leaf.label, before: then, after: now });
  }
  for (const leaf of before) if (!seen.has(leaf.pointer)) changes.push({ label: leaf.label, before: leafText(leaf) });
  return changes;
}
