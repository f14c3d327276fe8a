import { html } from 'hono/html';
import type { Html } from './html.ts';

export interface LayoutProps {
  title: string;
  /** Signed-in approver; shows navigation and the sign-out button. */
  user?: { id: string; signOutToken?: string | undefined } | undefined;
  /** Which nav entry is current. */
  current?: 'pending' | 'audit' | 'passkeys' | undefined;
  /** Tables with many columns (the audit log): a wider page on large screens. */
  wide?: boolean | undefined;
  body: Html;
}

/**
 * The page shell. Every action is a plain form post and every page works without
 * JavaScript; signed-in pages load one same-origin script (`/assets/page.js`, allowed by
 * the CSP's `script-src 'self'`) that only adds conveniences: live list updates, copy buttons.
 * Passkey pages also load `/assets/passkey.js`, which a passkey-rule decision needs.
 */
export function layout(props: LayoutProps): Html {
  const { user } = props;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${props.title} · Countersign</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/style.css">
${user === undefined ? '' : html`<script src="/assets/page.js" defer></script>`}
</head>
<body${props.wide === true ? html` class="wide"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="bar">
<a class="brand" href="/">Countersign</a>
${
  user === undefined
    ? ''
    : html`<nav aria-label="Main">
<a href="/"${props.current === 'pending' ? html` aria-current="page"` : ''}>Approvals</a>
<a href="/audit"${props.current === 'audit' ? html` aria-current="page"` : ''}>Audit log</a>
<a href="/passkeys"${props.current === 'passkeys' ? html` aria-current="page"` : ''}>Passkeys</a>
</nav>
<span class="who">Signed in as <strong>${user.id}</strong></span>
${
  user.signOutToken === undefined
    ? ''
    : html`<form method="post" action="/logout"><input type="hidden" name="csrf" value="${user.signOutToken}"><button type="submit">Sign out</button></form>`
}`
}
</div></header>
<main id="main"${props.wide === true ? html` class="wide"` : ''}>
${props.body}
</main>
</body>
</html>`;
}
