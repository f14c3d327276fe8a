import type { Completion, GatePort, Grant } from '../gate/index.ts';
import { unreachable } from './unreachable.ts';

/** A call that ran but whose result `complete` could not record (it reads `dispatched`: "ran, result unknown"). */
export interface CompletionFailure {
  proposalId: string;
  reason: string;
  message: string;
}

/**
 * The approval token of a call's request, when the gate issues one. No token (pending,
 * denied, used) is not an error here: `authorize` without one says which, with the
 * gate's own reason. A transport failure throws, for the caller's refusal.
 */
export async function issuedToken(port: GatePort, requestId: string | undefined): Promise<string | undefined> {
  if (requestId === undefined) return undefined;
  const issued = await port.token(requestId);
  return issued.ok ? issued.token : undefined;
}

/**
 * Reports a call's outcome with `port.complete`; never throws. The tool ran and its
 * result stands whatever happens here: a refused or lost completion goes to `onFailure`.
 */
export async function completeOrReport(port: GatePort, grant: Grant, completion: Completion, onFailure: (failure: CompletionFailure) => void): Promise<void> {
  try {
    const done = await port.complete(grant, completion);
    if (!done.ok) onFailure({ proposalId: grant.proposalId, reason: done.reason, message: done.message });
  } catch (error) {
    onFailure({ proposalId: grant.proposalId, reason: 'store_unavailable', message: unreachable(error) });
  }
}
