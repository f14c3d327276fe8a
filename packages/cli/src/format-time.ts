/** ISO time and how far it is from `now`, e.g. "2026-06-01T12:10:00.000Z (in 9m 58s)". */
export function describeTime(ms: number, now: number): string {
  const iso = Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
  const delta = ms - now;
  const span = formatSpan(Math.abs(delta));
  return `${iso} (${delta >= 0 ? `in ${span}` : `${span} ago`})`;
}

function formatSpan(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** Parses `--at`: an ISO 8601 time or milliseconds since the epoch. */
export function parseTime(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
