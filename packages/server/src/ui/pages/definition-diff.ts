import type { ToolDefinition } from '@countersign/core';
import { diffLines, diffWords } from 'diff';
import { html } from 'hono/html';
import { shown, shownFragment, shownJson } from '../display-html.ts';
import { prettyArguments } from '../format.ts';
import type { Html } from '../html.ts';

/**
 * What a new tool definition changes, for the approver deciding whether to trust it: the
 * parameters added and removed, the description word by word and the input schema line by
 * line, each addition marked (a rug pull adds a `bcc` parameter and one sentence: both
 * must stand out). Text goes through the same escapes as the rest of the page.
 */
export function definitionDiff(previous: ToolDefinition | undefined, next: ToolDefinition): Html {
  if (previous === undefined) {
    return html`<p id="definition-diff-none">A new tool: there is no earlier definition to compare with. Read the whole definition below.</p>`;
  }
  const before = parameterNames(previous);
  const after = parameterNames(next);
  const added = after.filter((p) => !before.includes(p));
  const removed = before.filter((p) => !after.includes(p));
  const descriptionChanged = (previous.description ?? '') !== (next.description ?? '');
  const schemaBefore = schemaText(previous);
  const schemaAfter = schemaText(next);
  return html`<div id="definition-diff">
${added.length === 0 ? '' : html`<p id="added-parameters"><strong>Added parameter${added.length === 1 ? '' : 's'}:</strong> ${added.map((p, i) => html`${i > 0 ? ', ' : ''}<ins><code>${shown(p)}</code></ins>`)}</p>`}
${removed.length === 0 ? '' : html`<p id="removed-parameters"><strong>Removed parameter${removed.length === 1 ? '' : 's'}:</strong> ${removed.map((p, i) => html`${i > 0 ? ', ' : ''}<del><code>${shown(p)}</code></del>`)}</p>`}
<h3>Description</h3>
${descriptionChanged ? html`<p class="diff" id="description-diff">${wordDiff(previous.description ?? '', next.description ?? '')}</p>` : html`<p class="muted">Unchanged.</p>`}
<h3>Input schema</h3>
${schemaBefore === schemaAfter ? html`<p class="muted">Unchanged.</p>` : html`<pre class="args diff" id="schema-diff">${lineDiff(schemaBefore, schemaAfter)}</pre>`}
${(previous.title ?? '') === (next.title ?? '') ? '' : html`<h3>Title</h3><p class="diff">${wordDiff(previous.title ?? '', next.title ?? '')}</p>`}
</div>`;
}

/** The new definition whole, for a first definition or whoever wants both in full. */
export function fullDefinition(definition: ToolDefinition | undefined): Html {
  return definition === undefined ? html`<p>Not recorded in the store.</p>` : html`<pre class="args">${shownJson(definition)}</pre>`;
}

function parameterNames(definition: ToolDefinition): string[] {
  const schema = definition.inputSchema as { properties?: unknown } | undefined;
  const properties = schema?.properties;
  return properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
}

function schemaText(definition: ToolDefinition): string {
  return definition.inputSchema === undefined ? '' : prettyArguments(JSON.stringify(definition.inputSchema));
}

function wordDiff(before: string, after: string): Html[] {
  return diffWords(before, after).map((part) => (part.added ? html`<ins>${shownFragment(part.value)}</ins>` : part.removed ? html`<del>${shownFragment(part.value)}</del>` : html`${shownFragment(part.value)}`));
}

function lineDiff(before: string, after: string): Html[] {
  return diffLines(`${before}\n`, `${after}\n`).map((part) =>
    part.added ? html`<ins>${prefixed('+ ', part.value)}</ins>` : part.removed ? html`<del>${prefixed('- ', part.value)}</del>` : html`${prefixed('  ', part.value)}`,
  );
}

/** Each line marked, so an addition reads as one without colour too. */
function prefixed(mark: string, text: string): Html {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  return html`${lines.map((line) => html`${mark}${shownFragment(line)}\n`)}`;
}
