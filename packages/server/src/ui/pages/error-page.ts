import { html } from 'hono/html';
import type { ApiError } from '../../errors/api-error.ts';
import type { Html } from '../html.ts';
import { layout } from '../layout.ts';

const TITLES: Partial<Record<ApiError['code'], string>> = {
  not_found: 'Not found',
  csrf_rejected: 'Request refused',
  forbidden: 'Not allowed',
  unauthenticated: 'Sign-in required',
  too_many_attempts: 'Too many attempts',
};

/**
 * What a reader can do about it. A 404 reads the same whether the thing does not exist or
 * is not this approver's to see, so the page confirms nothing about other approvers' requests.
 */
const HINTS: Partial<Record<ApiError['code'], string>> = {
  not_found: 'The link may be mistyped or out of date, or this is not something your account can see.',
};

export function errorPage(error: ApiError): Html {
  const title = TITLES[error.code] ?? 'Something went wrong';
  const hint = HINTS[error.code];
  return layout({
    title,
    body: html`<div class="card">
<h1>${title}</h1>
<p class="notice error" role="alert">${capitalized(error.message)}.</p>
${hint === undefined ? '' : html`<p>${hint}</p>`}
<p class="muted">Error code <span class="mono">${error.code}</span></p>
<p><a href="/">Back to approvals</a></p>
</div>`,
  });
}

function capitalized(text: string): string {
  return text.length === 0 ? text : `${text[0]!.toUpperCase()}${text.slice(1)}`;
}
