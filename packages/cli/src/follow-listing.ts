import { EventSourceParserStream } from 'eventsource-parser/stream';
import { APPROVER_TOKEN_ENV } from './approver-http.ts';
import { CliError } from './cli-error.ts';

/** Why one connection to the live stream ended without a change: the caller reconnects. */
export class StreamDropped extends Error {
  readonly code = 'stream_dropped';
}

/** A stream silent for longer than the idle limit; the caller reconnects like after any drop. */
export class StreamSilent extends StreamDropped {}

export interface FollowOptions {
  base: string;
  token: string | undefined;
  since: string;
  signal: AbortSignal;
  /**
   * How long the stream may stay silent, headers included. The service sends a heartbeat
   * comment at once and then every 15 s while nothing changes, so silence means the service
   * is gone or something between (a proxy, a dead NAT mapping) holds the socket open.
   */
  idleMs: number;
  /** Runs at the first bytes of the stream: only then is the connection known to be live. */
  onOpen: () => void;
}

/**
 * Waits on the service's live listing stream (`GET /events/approvals`, the one the list
 * page follows) until the approver's pending listing differs from `since`, and answers
 * the new version. The server wakes on the gate's events, so a new or decided request
 * arrives at once and nothing re-reads the list in between. A refused token is a CliError
 * (reconnecting would not help); a stream silent for `idleMs` is a StreamSilent; anything
 * else that ends the stream early is a StreamDropped.
 */
export async function nextListingChange(options: FollowOptions): Promise<string> {
  if (options.token === undefined || options.token === '') throw new CliError('config', `${APPROVER_TOKEN_ENV} must hold your approver API token`);
  const url = new URL(`/events/approvals?status=pending&version=${encodeURIComponent(options.since)}`, options.base);
  const idle = idleWatch(options.idleMs);
  try {
    return await follow(url, options, idle);
  } catch (error) {
    if (idle.signal.aborted && !options.signal.aborted) {
      throw new StreamSilent(`nothing from ${url.origin} for ${seconds(options.idleMs)} (not even its heartbeat)`);
    }
    throw error;
  } finally {
    idle.stop();
  }
}

/** An abort signal that fires once `ms` pass without a `touch()`. */
function idleWatch(ms: number): { signal: AbortSignal; touch: () => void; stop: () => void } {
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(), ms);
  return {
    signal: controller.signal,
    touch: () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), ms);
    },
    stop: () => clearTimeout(timer),
  };
}

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

async function follow(url: URL, options: FollowOptions, idle: ReturnType<typeof idleWatch>): Promise<string> {
  const signal = AbortSignal.any([options.signal, idle.signal]);
  let response: Response;
  try {
    // `manual`: a refused token answers with a redirect to the sign-in page, which is not a stream.
    response = await fetch(url, { headers: { authorization: `Bearer ${options.token}`, accept: 'text/event-stream' }, redirect: 'manual', signal });
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
  let opened = false;
  // Every chunk, a heartbeat comment too, proves the stream alive and restarts the idle clock.
  const alive = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      idle.touch();
      if (!opened) options.onOpen();
      opened = true;
      controller.enqueue(chunk);
    },
  });
  const events = response.body.pipeThrough(alive, { signal }).pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  try {
    for await (const event of events) {
      if (event.event === 'changed') return event.data;
      if (event.event === 'unavailable') throw new StreamDropped(`${url.origin} cannot read its store (${event.data})`);
    }
  } catch (error) {
    if (error instanceof StreamDropped || signal.aborted) throw error;
    throw new StreamDropped(`the stream from ${url.origin} broke: ${error instanceof Error ? error.message : String(error)}`);
  }
  throw new StreamDropped(`${url.origin} closed the stream`);
}
