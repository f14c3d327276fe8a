import { html } from 'hono/html';
import type { ApprovalView } from '../../views/request-views.ts';
import type { CallDisplay } from '../../views/call-display.ts';
import { digestHtml } from '../digest-html.ts';
import { shown, shownJson } from '../display-html.ts';
import type { Html } from '../html.ts';
import { argumentLeaves, type ArgumentLeaf } from '../summary/argument-leaves.ts';
import { leafText } from '../summary/call-summary.ts';

const LEAF_OPTIONS = { depth: 4, limit: 60 };

/**
 * The call, arguments first: one row per value (labels above values on a phone), each
 * value that breaks the pinned schema or hides characters marked where it is; then the
 * exact JSON, the digests and the canonical text for whoever checks bytes.
 */
export function callCard(view: ApprovalView, heading: string, definitionWarning: Html | string): Html {
  const { call } = view;
  const args: unknown = JSON.parse(call.canonicalArguments);
  const { leaves, more } = argumentLeaves(args, LEAF_OPTIONS);
  return html`<section class="card" aria-labelledby="what-runs"${view.review === undefined ? '' : html` hidden`}>
<h2 id="what-runs">${heading}</h2>
${definitionWarning}
<dl class="facts">
<dt>Tool</dt><dd><code id="tool-name">${shown(call.toolName)}</code></dd>
${call.definition.definition?.title === undefined ? '' : html`<dt>Tool title</dt><dd id="tool-title">${shown(call.definition.definition.title)}</dd>`}
${call.definition.definition?.description === undefined ? '' : html`<dt>Tool description</dt><dd id="tool-description">${shown(call.definition.definition.description)}</dd>`}
</dl>
<h3 id="arguments-title">Arguments</h3>
${leaves.length === 0 ? html`<p class="muted">No arguments.</p>` : html`<dl class="facts args-list" aria-labelledby="arguments-title">${leaves.map((leaf) => leafRow(leaf, view.display))}</dl>`}
${more === 0 ? '' : html`<p class="hint">… and ${more} more value${more === 1 ? '' : 's'}: see the exact JSON below.</p>`}
</section>`;
}

/** The same call for whoever checks bytes: its JSON, the digests an approval binds, the canonical text. */
export function exactCallCard(view: ApprovalView): Html {
  const { call } = view;
  const args: unknown = JSON.parse(call.canonicalArguments);
  return html`<section class="card" aria-labelledby="exact-call"${view.review === undefined ? '' : html` hidden`}>
<h2 id="exact-call">The exact call</h2>
<h3>Arguments as JSON</h3>
<pre class="args" id="arguments" aria-label="Arguments">${shownJson(args)}</pre>
<h3>Digests</h3>
<dl class="facts">
<dt>Arguments digest (SHA-256)</dt><dd>${digestHtml(call.argsDigest, 'args-digest')}</dd>
<dt>Tool definition digest</dt><dd>${call.definitionDigest === undefined ? html`<span id="definition-digest">none (tool has no pinned definition)</span>` : digestHtml(call.definitionDigest, 'definition-digest')}</dd>
</dl>
<details><summary>Exact canonical text (what the digest covers)</summary><pre class="args" id="canonical-arguments">${shownJson(args, 'canonical')}</pre></details>
${call.definition.definition?.inputSchema === undefined ? '' : html`<details><summary>Tool input schema (as proposed)</summary><pre class="args" id="tool-schema">${shownJson(call.definition.definition.inputSchema)}</pre></details>`}
</section>`;
}

/** A value row; flagged when a finding or a schema problem points at it or inside it. */
function leafRow(leaf: ArgumentLeaf, display: CallDisplay): Html {
  const within = (pointer: string) => pointer === leaf.pointer || pointer.startsWith(`${leaf.pointer}/`);
  const hidden = display.findings.filter((f) => within(f.pointer));
  // A problem at a parent (e.g. a missing sibling) is listed in the warning above, not on every value.
  const schema = display.inputSchema.problems.filter((p) => within(p.pointer));
  const unusual = hidden.length > 0 || schema.length > 0;
  const label = leaf.label === '' ? '(the arguments)' : leaf.label;
  return html`<div class="arg${unusual ? ' unusual' : ''}"><dt>${shown(label)}</dt><dd><span class="value">${shown(leafText(leaf))}</span>${
    unusual
      ? html`<span class="why-unusual">${[
          ...hidden.map((f) => html`<span class="tag">${f.kind.replaceAll('_', ' ')}</span> `),
          ...schema.map((p) => html`<span class="tag">outside schema: ${shown(p.message)}</span> `),
        ]}</span>`
      : ''
  }</dd></div>`;
}

/** "Why am I asked": the rule that asked, in its own words, and who must approve (and how many). */
export function whyAskedCard(view: ApprovalView): Html {
  const { eligible, requiredApprovals, approvals } = view;
  const who = [
    eligible.approvers?.length ? html`<li>named approvers: ${eligible.approvers.map((a, i) => html`${i > 0 ? ', ' : ''}<strong>${shown(a)}</strong>`)}</li>` : '',
    eligible.roles?.length ? html`<li>anyone with the role ${eligible.roles.map((r, i) => html`${i > 0 ? ' or ' : ''}<strong>${shown(r)}</strong>`)}</li>` : '',
    eligible.principalSelf === true ? html`<li>the user the agent acts for (<strong>${shown(view.call.principal)}</strong>)</li>` : '',
  ];
  return html`<section class="card" aria-labelledby="why-asked">
<h2 id="why-asked">Why am I asked</h2>
<dl class="facts">
<dt>Policy rule</dt><dd>${view.ruleId === undefined ? html`<span class="muted">none recorded</span>` : html`<code id="rule-id">${shown(view.ruleId)}</code>`}</dd>
<dt>What the rule says</dt><dd id="rule-description">${view.ruleDescription === undefined ? html`<span class="muted">The rule has no description.</span>` : shown(view.ruleDescription)}</dd>
<dt>Approvals needed</dt><dd id="required-approvals">${requiredApprovals} distinct approver${requiredApprovals === 1 ? '' : 's'} (${approvals} recorded so far), from:<ul class="who">${who}</ul></dd>
</dl>
</section>`;
}

/** The agent's own words about the call: untrusted, set apart, escaped like everything else. */
export function agentWordsCard(context: string | undefined): Html | string {
  if (context === undefined) return '';
  return html`<section class="card agent-words" aria-labelledby="agent-said">
<h2 id="agent-said">What the agent said about this call</h2>
<p class="hint">The agent's own words, not checked by anyone. They may be wrong or written by an attacker: decide on the arguments above.</p>
<blockquote id="agent-context">${shown(context)}</blockquote>
</section>`;
}
