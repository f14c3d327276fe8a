import { EventSourceParserStream } from 'eventsource-parser/stream';
import { APPROVER_TOKEN_ENV } from './approver-http.ts';
import { CliError } from './cli-error.ts';

/** Why one connection to the live stream ended without a change: the caller reconnects. */
export class StreamDropped extends Error {
  readonly code = 'stream_dropped';
}

/**
 * Waits on the service's live listing stream (`GET /events/approvals`, the one the list
 * page follows) until the approver's pending listing differs from `since`, and answers
 * the new version. The server wakes on the gate's events, so a new or decided request
 * arrives at once and nothing re-reads the list in between. `onOpen` runs once the
 * stream is accepted. A refused token is a CliError (reconnecting would not help);
 * anything else that ends the stream early is a StreamDropped.
 */
export async function nextListingChange(options: { base: string; token: string | undefined; since: string; signal: AbortSignal; onOpen: () => void }): Promise<string> {
  if (options.token === undefined || options.token === '') throw new CliError('config', `${APPROVER_TOKEN_ENV} must hold your approver API token`);
  const url = new URL(`/events/approvals?status=pending&version=${encodeURIComponent(options.since)}`, options.base);
  let response: Response;
  try {
    // `manual`: a refused token answers with a redirect to the sign-in page, which is not a stream.
    response = await fetch(url, { headers: { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' }, redirect: 'manual', signal: options.signal });
  } catch (error) {
    throw new StreamDropped(`cannot reach ${url.origin}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (response.status === 401 || response.status === 403 || (response.status >= 300 && response.status < 400)) {
    await response.body?.cancel();
    throw new CliError('config', `${url.origin} refused the approver token for the live stream (HTTP ${response.status})`);
  }
  if (response.status !== 200 || response.body === null || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await response.body?.cancel();
    throw new StreamDropped(`${url.origin} answered HTTP ${response.status} instead of an event stream`);
  }
  options.onOpen();
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  try {
    for await (const event of events) {
      if (event.event === 'changed') return event.data;
      if (event.event === 'unavailable') throw new StreamDropped(`${url.origin} cannot read its store (${event.data})`);
    }
  } catch (error) {
    if (error instanceof StreamDropped || options.signal.aborted) throw error;
    throw new StreamDropped(`the stream from ${url.origin} broke: ${error instanceof Error ? error.message : String(error)}`);
  }
  throw new StreamDropped(`${url.origin} closed the stream`);
}
