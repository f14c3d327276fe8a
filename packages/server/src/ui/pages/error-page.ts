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

export function errorPage(error: ApiError): Html {
  const title = TITLES[error.code] ?? 'Something went wrong';
  return layout({
    title,
    body: html`<div class="card">
<h1>${title}</h1>
<p class="notice error" role="alert"><span class="mono">${error.code}</span>: ${error.message}</p>
<p><a href="/">Back to approvals</a></p>
</div>`,
  });
}
