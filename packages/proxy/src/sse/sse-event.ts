/** One server-sent event: its `event` field (if any) and its data lines joined with "\n". */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

// An event ends at a blank line; the spec allows \r\n, \n and \r line endings.
const EVENT_END = /\r\n\r\n|\n\n|\r\r/;
const LINE_END = /\r\n|\n|\r/;

/**
 * Splits a growing SSE text buffer into complete events, keeping each event's raw text
 * (so it is forwarded byte for byte) and its parsed fields. Returns the unconsumed rest.
 */
export function takeEvents(buffer: string): { events: Array<{ raw: string; event: SseEvent }>; rest: string } {
  const events: Array<{ raw: string; event: SseEvent }> = [];
  let rest = buffer;
  for (;;) {
    const end = EVENT_END.exec(rest);
    if (end === null) break;
    const raw = rest.slice(0, end.index + end[0].length);
    rest = rest.slice(raw.length);
    events.push({ raw, event: parseEvent(raw.slice(0, end.index)) });
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
