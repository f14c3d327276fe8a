import { html } from 'hono/html';
import type { Html } from '../html.ts';
import { layout } from '../layout.ts';

/** `next`: where to return after signing in, already checked by `safeNext` (`/` when there is nowhere to return). */
export function loginPage(props: { error?: string | undefined; username?: string | undefined; notice?: string | undefined; next?: string | undefined }): Html {
  return layout({
    title: 'Sign in',
    body: html`<div class="login card">
<h1>Sign in to approve</h1>
<p class="lead">Countersign shows you the exact call an agent wants to make. Nothing runs until you approve it.</p>
${props.notice === undefined ? '' : html`<p class="notice ok" role="status">${props.notice}</p>`}
${props.error === undefined ? '' : html`<p class="notice error" role="alert" id="login-error">${props.error}</p>`}
<form method="post" action="/login">
${props.next === undefined || props.next === '/' ? '' : html`<input type="hidden" name="next" value="${props.next}">`}
<label for="username">Approver id</label>
<input type="text" id="username" name="username" autocomplete="username" required value="${props.username ?? ''}"${props.error === undefined ? '' : html` aria-describedby="login-error"`}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button class="primary" type="submit">Sign in</button>
</form>
</div>`,
  });
}
