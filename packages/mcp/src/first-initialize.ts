import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type ClientCapabilities, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

type Delivered = Parameters<NonNullable<Transport['onmessage']>>;

/**
 * The gateway starts its upstreams once the first client's `initialize` is read, declaring
 * that client's capabilities at their own initialize (MCP fixes them there; starting them
 * earlier meant restarting a stdio upstream for a client that declared any). Each client's
 * `initialize` waits for `before` (the start, shared by all clients: at once when done), and
 * what the client sends meanwhile is held behind it in order; then it all goes to the SDK
 * Server (set as `onmessage` by its `connect`), whose answer names what the upstreams serve.
 * Other messages pass straight through.
 */
export function holdInitialize(transport: Transport, before: (declared: ClientCapabilities) => Promise<void>): void {
  let dispatch: Transport['onmessage'];
  let held: Delivered[] | undefined;
  const onmessage = (...delivered: Delivered) => {
    if (held !== undefined) return void held.push(delivered);
    const [message] = delivered;
    if (!isInitializeRequest(message)) return void dispatch?.(...delivered);
    held = [delivered];
    void before(message.params.capabilities)
      .catch(() => undefined)
      .finally(() => {
        const queue = held ?? [];
        held = undefined;
        for (const next of queue) dispatch?.(...next);
      });
  };
  // The transport calls `this.onmessage` for each message: the SDK Server's handler is kept and this one stands before it.
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    enumerable: true,
    get: () => (dispatch === undefined ? undefined : onmessage),
    set: (handler: Transport['onmessage']) => {
      dispatch = handler;
    },
  });
}
