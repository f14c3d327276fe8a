/** One server-sent event: its `event` field (if any) and its data lines joined with "\n". */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

// An event ends at a blank line; the spec allows \r\n, \n and \r line endings.
const EVENT_END = /\r\n\r\n|\n\n|\r\r/;
const LINE_END = /\r\n|\n|\r/;

/**
 * Splits a growing SSE buffer into the raw text of its complete events (with the blank
 * line that ends each), so each is forwarded byte for byte. Returns the unconsumed rest.
 * The delimiters are ASCII, so a buffer read as latin1 splits exactly as its bytes do.
 */
export function takeEvents(buffer: string): { events: string[]; rest: string } {
  const events: string[] = [];
  let rest = buffer;
  for (;;) {
    const end = EVENT_END.exec(rest);
    if (end === null) break;
    const raw = rest.slice(0, end.index + end[0].length);
    rest = rest.slice(raw.length);
    events.push(raw);
  }
  return { events, rest };
}

export function parseEvent(block: string): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of block.split(LINE_END)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return { event, data: data.join('\n') };
}

/** Whether a parsed event carries anything (comments and keep-alives do not). */
export function isEmptyEvent(event: SseEvent): boolean {
  return event.event === undefined && event.data === '';
}
