import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * The `fetch` of the gateway's Streamable HTTP upstream transports. The SDK passes every
 * request the transport's one long-lived abort signal; fetch hangs a listener on it per
 * request that is only dropped when garbage collected, so under load the signal carries
 * hundreds of listeners and every request pays for them (measured: ~0.3 ms of CPU per
 * call, `npm run bench -- mcp`). Here each POST gets its own signal, linked to the
 * transport's until its response arrives: closing the transport still aborts a request
 * under way. A response body already arriving is then read to its end (the upstream's
 * answer to that one request) and dropped by the closed transport. Other requests (the
 * standalone GET stream, the session DELETE) keep the transport's signal as they are.
 */
export const upstreamFetch: FetchLike = async (url, init) => {
  const shared = init?.signal;
  if (init === undefined || shared === undefined || shared === null || init.method !== 'POST') return fetch(url, init);
  const own = new AbortController();
  const onAbort = () => own.abort(shared.reason);
  if (shared.aborted) own.abort(shared.reason);
  else shared.addEventListener('abort', onAbort, { once: true });
  try {
    return await fetch(url, { ...init, signal: own.signal });
  } finally {
    shared.removeEventListener('abort', onAbort);
  }
};
