import { html } from 'hono/html';
import type { ApprovalView } from '../../views/request-views.ts';
import type { Html } from '../html.ts';

/**
 * The request page's passkey part, for a request opened under a passkey rule: says what
 * signing proves, carries the request id for /assets/passkey.js and loads it. Nothing for
 * other requests: their page has no script at all.
 */
export function passkeySection(view: ApprovalView, canDecide: boolean): Html | string {
  if (view.passkey !== 'required') return '';
  return html`<section class="card" id="passkey-decision" data-request-id="${view.requestId}" aria-labelledby="passkey-heading">
<h2 id="passkey-heading">Signed with your passkey</h2>
<p>This call's policy rule requires each decision to be signed by your own passkey. Your device signs a digest of exactly this call (tool, definition digest, argument digest, run, session, call id, principal), your decision and the deadline; the server keeps the signature with your decision and <code>countersign audit verify</code> checks it again later.</p>
<p class="hint">Your authenticator does not show the call: what you approve is what this page shows. ${canDecide ? html`No passkey yet? <a href="/passkeys">Add one</a>.` : ''}</p>
<p class="notice info" id="passkey-status" role="status" hidden></p>
<noscript><p class="notice error">Deciding this request needs JavaScript (to use your passkey).</p></noscript>
</section>
<script src="/assets/passkey.js" defer></script>`;
}
