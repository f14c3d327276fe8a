import { type DisplaySegment, displayJson, displaySegments, displayText } from '@countersign/core/display';
import { html } from 'hono/html';
import type { CallDisplay } from '../views/call-display.ts';
import type { Html } from './html.ts';

/** Segments as markup: escapes in their own style, named in a tooltip. */
function segmentsHtml(segments: readonly DisplaySegment[]): Html[] {
  return segments.map((s) => (s.escaped ? html`<span class="esc" title="${s.description}">${s.text}</span>` : html`${s.text}`));
}

/** A string from the call, shown so that nothing in it is hidden or passes for something else. */
export function shown(text: string): Html {
  return html`${segmentsHtml(displaySegments(text))}`;
}

/** A piece of a text shown whole elsewhere (a diff line or part): its indentation and edge spaces are not flagged. */
export function shownFragment(text: string): Html {
  return html`${segmentsHtml(displaySegments(text, { fragment: true }))}`;
}

/** A JSON value, indented, with the same escapes (valid JSON for the same value). */
export function shownJson(value: unknown, format: 'pretty' | 'canonical' = 'pretty'): Html {
  return html`${segmentsHtml(displayJson(value, format))}`;
}

/** For places that cannot hold markup (the page title, text boxes): the escapes as text. */
export { displayText as shownText };

/** The call is flagged in any way a person should stop and look at. */
export function isFlagged(display: CallDisplay): boolean {
  return display.findings.length > 0 || display.inputSchema.problems.length > 0;
}

/** The warnings above the call: what was found and where (JSON Pointer), before anything else. */
export function displayWarnings(display: CallDisplay): Html | string {
  const { findings, inputSchema } = display;
  const characters =
    findings.length === 0
      ? ''
      : html`<section class="flag" role="alert" id="display-warnings" aria-labelledby="display-warnings-title">
<h2 id="display-warnings-title">Warning: this call contains text that does not read as what it is</h2>
<p>Characters that are invisible, reorder text, or look like other letters are shown below as escapes like <span class="esc">\\u202E</span>. Read those values character by character before you approve.</p>
<ul>${findings.map(
          (f) =>
            html`<li data-kind="${f.kind}"><code class="pointer">${shown(f.pointer === '' ? '/' : f.pointer)}</code>${f.where === 'key' ? ' (the key)' : ''}: <strong>${f.kind}</strong>, ${f.detail}</li>`,
        )}${display.truncated ? html`<li>… and more not listed.</li>` : ''}</ul>
</section>`;
  const schema =
    inputSchema.problems.length === 0
      ? ''
      : html`<section class="flag" role="alert" id="schema-problems" aria-labelledby="schema-problems-title">
<h2 id="schema-problems-title">Warning: the arguments do not match the tool's pinned input schema</h2>
<ul>${inputSchema.problems.map((p) => html`<li><code class="pointer">${shown(p.pointer)}</code>: ${shown(p.message)}</li>`)}</ul>
</section>`;
  return html`${characters}${schema}`;
}
