import { html } from 'hono/html';
import { shownFragment, shownText } from './display-html.ts';
import { clipText } from './format.ts';
import type { Html } from './html.ts';

// Where an identifier may wrap: after the separators people read as joints
// (`team:payments/user@example.com`), never inside a word.
const JOINT = /(?<=[:/@._-])/;

// A run longer than this between separators is no word a person reads (a token, a hash):
// it may wrap every RUN_CHUNK characters rather than push the table wider than its box.
const LONGEST_RUN = 24;
const RUN_CHUNK = 16;

/** `text` (display-safe) with a line-break opportunity after each separator, and inside runs too long to be words. */
export function breakableHtml(text: string): Html {
  const parts = text.split(JOINT).flatMap(chunks);
  return html`${parts.map((part, i) => html`${i > 0 ? html`<wbr>` : ''}${shownFragment(part)}`)}`;
}

function chunks(part: string): string[] {
  const points = Array.from(part);
  if (points.length <= LONGEST_RUN) return [part];
  const out: string[] = [];
  for (let i = 0; i < points.length; i += RUN_CHUNK) out.push(points.slice(i, i + RUN_CHUNK).join(''));
  return out;
}

/**
 * A long identifier (a principal) shortened to `max` characters for a table cell, wrapping
 * only at its separators. The full value is in the title (hover) and, cut short, one tap or
 * Tab away: the element takes focus and then shows the whole value instead (CSS, no script).
 */
export function clippedIdHtml(text: string, max: number, keepEnd: number): Html {
  const cut = clipText(text, max, keepEnd);
  if (cut === text) return html`<span class="id-text">${breakableHtml(text)}</span>`;
  return html`<span class="id-text clipped" tabindex="0" title="${shownText(text)}"><span class="short">${breakableHtml(cut)}</span><span class="full">${breakableHtml(text)}</span></span>`;
}
