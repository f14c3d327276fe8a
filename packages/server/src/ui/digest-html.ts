import { html } from 'hono/html';
import type { Html } from './html.ts';

/** `3f2a9c1b…e07d`: enough to tell digests apart at a glance, short enough for a phone. */
export function shortDigest(value: string): string {
  return value.length <= 20 ? value : `${value.slice(0, 12)}…${value.slice(-4)}`;
}

/**
 * A digest (or any long id) shortened, with the full value one tap away: a native
 * disclosure whose full text is selectable without JavaScript, and a copy button the
 * page script adds (`data-copy`). `id` goes on the full value, the exact text.
 */
export function digestHtml(value: string, id?: string): Html {
  if (value.length <= 20) return html`<code class="digest-full"${id === undefined ? '' : html` id="${id}"`}>${value}</code>`;
  return html`<span class="digest" data-copy="${value}"><details><summary><code title="Show the full value">${shortDigest(value)}</code></summary><code class="digest-full"${id === undefined ? '' : html` id="${id}"`}>${value}</code></details></span>`;
}
