import type { AgentApi, RequestStatus } from './agent-api.ts';
import { readServerSentEvents } from './server-sent-events.ts';

export type WaitMode = 'events' | 'poll';

/**
 * Waits until a person decides (or the request expires). With `events` it follows
 * the request's event stream and falls back to long-polling if the stream ends
 * early (a proxy cut it, the server restarted); with `poll` it only long-polls.
 */
export async function waitForDecision(
  api: AgentApi,
  requestId: string,
  mode: WaitMode,
  options: { signal?: AbortSignal | undefined; onFallback?: ((why: string) => void) | undefined } = {},
): Promise<RequestStatus> {
  const { signal } = options;
  if (mode === 'events') {
    try {
      const response = await api.events(requestId, signal);
      for await (const message of readServerSentEvents(response.body!)) {
        if (message.event !== 'status') continue;
        const status = JSON.parse(message.data) as RequestStatus;
        if (status.status !== 'pending') return status;
      }
      options.onFallback?.('the event stream ended before a decision');
    } catch (error) {
      if (signal?.aborted) throw error;
      // Fall through to long-polling: the decision is in the ledger either way.
      options.onFallback?.(`the event stream failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  for (;;) {
    signal?.throwIfAborted();
    const status = await api.requestStatus(requestId, 25, signal);
    if (status.status !== 'pending') return status;
  }
}
