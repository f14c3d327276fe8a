import type { IncomingMessage } from 'node:http';
import { JsonRpcError } from './json-rpc-error.ts';

/** JSON-RPC code of an upstream message refused for its size (implementation-defined server error range). */
export const MESSAGE_TOO_LARGE = -32011;

/** The largest message the gateway reads from an upstream by default: 10 MiB, the MCP SDK's own stdio limit. */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * An upstream sent a message (a tool result, a listing, a notification) larger than the
 * gateway's `maxMessageBytes`: it is not read on (never buffered without bound) and the
 * request it answered fails with this one JSON-RPC error; a tool call is refused
 * `result_too_large`. A stdio upstream's stream cannot be resynchronised after a cut
 * line, so its connection is closed and restarted (supervised-upstream.ts).
 */
export class MessageTooLargeError extends JsonRpcError {
  readonly reason = 'message_too_large' as const;

  constructor(upstream: string, limitBytes: number, closed: boolean) {
    const after = closed ? '; its connection was closed and is restarted' : '';
    super(MESSAGE_TOO_LARGE, `upstream ${upstream} sent a message larger than the gateway's limit of ${limitBytes} bytes (maxMessageBytes)${after}`, {
      countersign: { reason: 'message_too_large', upstream, limitBytes },
    });
    this.name = 'MessageTooLargeError';
  }
}

/**
 * Reads a response body whole unless it passes `limitBytes`: then reading stops, the
 * connection is dropped (the rest is never received) and `onTooLarge` is called instead.
 */
export function readBounded(res: IncomingMessage, limitBytes: number, onText: (text: string) => void, onError: (error: Error) => void, onTooLarge: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limitBytes) return void chunks.push(chunk);
    res.off('data', onData);
    chunks.length = 0;
    res.destroy();
    onTooLarge();
  };
  res.on('data', onData);
  res.once('end', () => {
    if (size <= limitBytes) onText(Buffer.concat(chunks).toString('utf8'));
  });
  res.once('error', (error) => {
    if (size <= limitBytes) onError(error);
  });
}

/**
 * Counts the bytes of the event an event stream is in: `feed` each chunk; true once the
 * current event (since the last blank line) is larger than `limitBytes`.
 */
export function eventSizeGuard(limitBytes: number): (chunk: Buffer) => boolean {
  let current = 0;
  return (chunk) => {
    const first = firstBoundary(chunk);
    if (first === -1) {
      current += chunk.length;
      return current > limitBytes;
    }
    // The event that ends in this chunk, then the start of the next one (after the last boundary).
    if (current + first > limitBytes) return true;
    current = chunk.length - lastBoundaryEnd(chunk);
    return current > limitBytes;
  };
}

/** Where the first blank line (an event's end, LF or CRLF) starts in `chunk`, or -1. */
function firstBoundary(chunk: Buffer): number {
  const found = [chunk.indexOf('\n\n'), chunk.indexOf('\r\n\r\n')].filter((i) => i !== -1);
  return found.length === 0 ? -1 : Math.min(...found);
}

/** Where the bytes after the last blank line in `chunk` start. */
function lastBoundaryEnd(chunk: Buffer): number {
  return Math.max(chunk.lastIndexOf('\n\n') + 2, chunk.lastIndexOf('\r\n\r\n') + 4);
}
