import type { CountersignClient } from '@countersign/client';
import type { WaitOutcome } from '@countersign/core';
import { readServerSentEvents } from './server-sent-events.ts';

export type WaitMode = 'events' | 'poll';

/**
 * Waits until a person decides (or the request expires). With `events` it follows the
 * request's event stream and falls back to the client's long-poll if the stream ends
 * early (a proxy cut it, the server restarted); with `poll` it only long-polls
 * (`client.waitForDecision`).
 */
export async function waitForDecision(
  client: CountersignClient,
  agentToken: string,
  requestId: string,
  mode: WaitMode,
  options: { signal?: AbortSignal | undefined; onFallback?: ((why: string) => void) | undefined } = {},
): Promise<WaitOutcome> {
  const { signal } = options;
  if (mode === 'events') {
    try {
      // The stream only says when to look; the typed outcome comes from the client.
      if (await followEvents(client, agentToken, requestId, signal)) return await client.waitForDecision(requestId, { timeoutMs: 0 });
      options.onFallback?.('the event stream ended before a decision');
    } catch (error) {
      if (signal?.aborted) throw error;
      // Fall through to long-polling: the decision is in the ledger either way.
      options.onFallback?.(`the event stream failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (;;) {
    signal?.throwIfAborted();
    const outcome = await client.waitForDecision(requestId, { signal });
    if (!outcome.ok || outcome.status !== 'pending') return outcome;
  }
}

/** Follows the request's server-sent event stream; true once it reports a status other than pending. */
async function followEvents(client: CountersignClient, agentToken: string, requestId: string, signal: AbortSignal | undefined): Promise<boolean> {
  const response = await fetch(`${client.baseUrl}/api/v1/requests/${encodeURIComponent(requestId)}/events`, {
    headers: { authorization: `Bearer ${agentToken}`, accept: 'text/event-stream' },
    ...(signal === undefined ? {} : { signal }),
  });
  if (!response.ok || response.body === null) throw new Error(`the event stream answered ${response.status}`);
  for await (const message of readServerSentEvents(response.body)) {
    if (message.event === 'status' && (JSON.parse(message.data) as { status?: unknown }).status !== 'pending') return true;
  }
  return false;
}
