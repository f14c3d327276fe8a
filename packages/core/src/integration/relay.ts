import type { GatePort, RelayedToolMessage, RelayFailure } from '../gate/index.ts';
import { unreachable } from './unreachable.ts';

/**
 * Thrown before a model request is sent when a tool result it relays is not the result
 * recorded for its call (CASA check 5): the history the model would read was edited
 * (a resent chat, a resumed or forked thread, a serialized run state) or made up. The
 * model is never called; the framework's run rejects with this error.
 */
export class CountersignRelayRefusal extends Error {
  readonly code = 'relay_refused' as const;
  readonly reason: 'relay_refused' | 'invalid_request' | 'store_unavailable';
  readonly failures: RelayFailure[];
  /** The gate's (or the transport's) own words, without the refusal prefix, for a framework that writes its own error. */
  readonly detail: string;

  constructor(reason: CountersignRelayRefusal['reason'], message: string, failures: RelayFailure[] = []) {
    super(`countersign:relay_refused:${reason}: ${message}`);
    this.name = 'CountersignRelayRefusal';
    this.reason = reason;
    this.failures = failures;
    this.detail = message;
  }
}

/**
 * Checks relayed tool results against the ledger (`port.checkRelayed`); throws
 * `CountersignRelayRefusal` unless all are faithful. A gate that cannot be reached is a
 * refusal too (`store_unavailable`): an unchecked result is never relayed.
 */
export async function checkRelayedOrThrow(port: Pick<GatePort, 'checkRelayed'>, runId: string, toolMessages: RelayedToolMessage[]): Promise<void> {
  if (toolMessages.length === 0) return;
  let outcome: Awaited<ReturnType<GatePort['checkRelayed']>>;
  try {
    outcome = await port.checkRelayed({ runId, toolMessages });
  } catch (error) {
    throw new CountersignRelayRefusal('store_unavailable', unreachable(error));
  }
  if (outcome.ok) return;
  throw new CountersignRelayRefusal(outcome.reason, outcome.message, outcome.reason === 'relay_refused' ? outcome.failures : []);
}
