const MAX_SHOWN = 60;

/**
 * Quotes a piece of untrusted input for an error message: JSON-escaped (so lone
 * surrogates and control characters stay visible and harmless in logs) and cut
 * short, because arguments can be a megabyte and messages end up in logs.
 */
export function quoteForMessage(text: string): string {
  if (text.length <= MAX_SHOWN) return JSON.stringify(text);
  return `${JSON.stringify(text.slice(0, MAX_SHOWN))}… (${text.length} chars)`;
}

/** Cuts a message that may embed input (e.g. a JSON.parse SyntaxError message). */
export function truncateMessage(message: string, max = 200): string {
  return message.length <= max ? message : `${message.slice(0, max)}…`;
}

/** Where an error happened, for messages: the pointer, or `/` for the root. */
export function describePath(path: string): string {
  if (path === '') return '/';
  // A key with a lone surrogate would put one in the message; show it escaped.
  const printable = path.isWellFormed() ? path : JSON.stringify(path).slice(1, -1);
  return truncateMessage(printable, 120);
}
