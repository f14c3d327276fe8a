import type { PasskeyCredential } from '@countersign/core/passkey';
import { html } from 'hono/html';
import { shown } from '../display-html.ts';
import type { Html } from '../html.ts';
import { type LayoutProps, layout } from '../layout.ts';
import { timeHtml } from '../time-html.ts';

export interface PasskeysPageProps {
  user: NonNullable<LayoutProps['user']>;
  /** The signed-in approver's passkeys, removed ones included (shown as removed). */
  credentials: readonly PasskeyCredential[];
  csrfToken: string;
  /** Why passkeys cannot be registered here (no store, an IP-address origin), if so. */
  unavailable?: string | undefined;
  notice?: string | undefined;
  error?: string | undefined;
}

/** GET /passkeys: the approver's passkeys, removal, and (with JavaScript) registration. */
export function passkeysPage(props: PasskeysPageProps): Html {
  const active = props.credentials.filter((c) => c.removedAt === undefined);
  const removed = props.credentials.filter((c) => c.removedAt !== undefined);
  return layout({
    title: 'Your passkeys',
    user: props.user,
    current: 'passkeys',
    body: html`<h1>Your passkeys</h1>
<p class="lead">A policy rule can require that decisions be signed by your own passkey. Then the server alone cannot approve a call in your name: only your device can.</p>
${props.notice === undefined ? '' : html`<p class="notice ok" role="status">${props.notice}</p>`}
${props.error === undefined ? '' : html`<p class="notice error" role="alert">${props.error}</p>`}
<section class="card" aria-labelledby="registered">
<h2 id="registered">Registered</h2>
${
  active.length === 0
    ? html`<p id="no-passkeys">None yet.</p>`
    : html`<ul class="passkeys">${active.map(
        (c) => html`<li><strong>${shown(c.label)}</strong> · added ${timeHtml(c.createdAt)}${c.lastUsedAt === undefined ? '' : html` · last used ${timeHtml(c.lastUsedAt)}`}
<br><span class="mono hint">${c.credentialId}</span>
<form method="post" action="/passkeys/remove" class="passkey-remove"><input type="hidden" name="csrf" value="${props.csrfToken}"><input type="hidden" name="credentialId" value="${c.credentialId}"><button class="danger" type="submit">Remove</button></form></li>`,
      )}</ul>`
}
${active.length === 0 ? '' : html`<p class="hint">Adding another passkey, or removing one, needs confirmation with one of these (so a stolen password alone cannot change them). Lost them all? An operator can remove a passkey with <code>countersign auth passkeys --remove</code>.</p>`}
${removed.length === 0 ? '' : html`<p class="hint">${removed.length} removed passkey${removed.length === 1 ? ' is' : 's are'} kept only so the audit log can still check the decisions ${removed.length === 1 ? 'it' : 'they'} signed.</p>`}
</section>
<section class="card" aria-labelledby="add">
<h2 id="add">Add a passkey</h2>
${
  props.unavailable === undefined
    ? html`<form id="passkey-register" hidden>
<label for="passkey-label">Name (to tell your passkeys apart)</label>
<input type="text" id="passkey-label" name="label" maxlength="60" value="passkey">
<button class="primary" type="submit">Add a passkey</button>
</form>
<p class="notice info" id="passkey-status" role="status" hidden></p>
<noscript><p>Adding a passkey needs JavaScript.</p></noscript>
<script src="/assets/passkey.js" defer></script>`
    : html`<p class="notice info">${props.unavailable}</p>`
}
</section>`,
  });
}
