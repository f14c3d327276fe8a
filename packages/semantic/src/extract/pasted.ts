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

export function withoutPasted(text: string): string {
  return text
    .split('\n')
    .filter((line) => !PASTED_LINE.some((re) => re.test(line)))
    .join('\n');
}
