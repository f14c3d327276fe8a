/**
 * Lines that are material the user pasted, not words they wrote: quoted mail ("> …"), the
 * header lines of a forwarded or quoted message, and log lines (a timestamp or a log level
 * first, or a stack frame). An instruction hidden in a pasted mail or log is the sender's, not
 * the user's.
 */
const PASTED_LINE = [
  /^\s*>/,
  /^\s*(?:-{2,}\s*(?:original message|forwarded message)\s*-*|begin forwarded message:)\s*$/i,
  /^\s*(?:from|sent|to|cc|bcc|date|subject|reply-to):\s+\S/i,
  /^\s*on .{4,120} wrote:\s*$/i,
  /^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/,
  /^\s*\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s/,
  /^\s*\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL)\]?[\s:]/,
  /^\s+at\s+\S.*[(:]\S*\d+/,
];

/** A message this long is mostly material … */
const LONG_MESSAGE = 1_000;
/** … and a paragraph this long in it is a pasted document, not words the user wrote to the assistant. */
const LONG_PARAGRAPH = 400;

export function withoutPasted(text: string): string {
  const kept = text
    .split('\n')
    .filter((line) => !PASTED_LINE.some((re) => re.test(line)))
    .join('\n');
  return withoutDocuments(kept);
}

/**
 * In a long message, the long paragraphs are a pasted document and the short ones around them
 * the user's request ("Summarize this for the team:" … "Keep it to three bullets."). When every
 * paragraph is long, nothing is dropped: the request is in there somewhere.
 */
function withoutDocuments(text: string): string {
  if (text.length <= LONG_MESSAGE) return text;
  const paragraphs = text.split(/\n\s*\n/);
  const short = paragraphs.filter((p) => p.trim().length <= LONG_PARAGRAPH && p.trim() !== '');
  return short.length === 0 || short.length === paragraphs.length ? text : short.join('\n\n');
}
