import { html } from 'hono/html';
import { formatTime } from './format.ts';
import type { Html } from './html.ts';

/**
 * A point in time on a page: the UTC text (what a reader without JavaScript sees), the exact
 * instant in `datetime`, and UTC again in the title. page.js rewrites the text to the viewer's
 * own time zone, in the same layout, and keeps the UTC title for hover.
 */
export function timeHtml(ms: number): Html {
  const utc = formatTime(ms);
  return html`<time datetime="${new Date(ms).toISOString()}" title="${utc}">${utc}</time>`;
}
