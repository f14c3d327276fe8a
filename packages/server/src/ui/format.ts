import { displayJson, segmentsToText } from '@countersign/core/display';

/** `2026-06-01 12:00:00 UTC`: unambiguous for approvers in any time zone. */
export function formatTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A short human duration: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** `in 9 min` / `3 min ago`, relative to the server's clock. */
export function relativeTo(ms: number, now: number): string {
  if (Math.abs(ms - now) < 1000) return 'just now';
  return ms >= now ? `in ${formatDuration(ms - now)}` : `${formatDuration(now - ms)} ago`;
}

/**
 * Arguments as the approver reads them in a text box: the canonical JSON, indented,
 * with hidden or misleading characters as JSON escapes (same value, nothing hidden).
 */
export function prettyArguments(canonicalArgs: string): string {
  return segmentsToText(displayJson(JSON.parse(canonicalArgs)));
}

/**
 * `text` cut to at most `max` code points (never inside a surrogate pair), ending in `…`
 * when cut; `keepEnd` keeps that many code points of the end too (`abc…xyz`), for ids
 * that differ at either end. For lists and tables only: the request page shows values whole.
 */
export function clipText(text: string, max: number, keepEnd = 0): string {
  const points = Array.from(text);
  if (points.length <= max) return text;
  const head = points.slice(0, Math.max(1, max - 1 - keepEnd)).join('');
  return keepEnd > 0 ? `${head}…${points.slice(-keepEnd).join('')}` : `${head}…`;
}
