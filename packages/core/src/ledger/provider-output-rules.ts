import { LedgerError } from './errors.ts';
import type { Proposal, ProviderOutputRecord, RecordProviderOutputOutcome, ResultRecord } from './types.ts';

const DIGEST = /^[0-9a-f]{64}$/;

/** Throws `LedgerError('invalid_input')` for an output no store may record (checked before any write). */
export function checkProviderOutput(output: ProviderOutputRecord): void {
  if (typeof output !== 'object' || output === null) throw new LedgerError('invalid_input', 'a provider output must be an object');
  if (typeof output.resultDigest !== 'string' || !DIGEST.test(output.resultDigest)) {
    throw new LedgerError('invalid_input', 'a provider output digest must be SHA-256 (64 lowercase hex characters)');
  }
  if (!Number.isSafeInteger(output.at) || output.at < 0) throw new LedgerError('invalid_input', 'a provider output time must be milliseconds since the epoch');
}

/**
 * `LedgerStore.recordProviderOutput`'s rule, on the call as read under the write's lock:
 * the answer, and for a write that takes effect (`created`) the call as it must be
 * stored (`outcome.proposal`: dispatched, with the output as its result). Every store
 * applies this one rule, so they cannot disagree on what a provider output may change.
 */
export function providerOutputChange(proposal: Proposal | undefined, output: ProviderOutputRecord): RecordProviderOutputOutcome {
  // A runtime's call takes results through dispatch and complete only.
  if (proposal === undefined || proposal.executedBy !== 'provider') return { ok: false, reason: 'not_found' };
  const result: ResultRecord = { status: 'succeeded', resultDigest: output.resultDigest, at: output.at };
  const existing = proposal.result;
  if (existing !== undefined) {
    if (existing.status === result.status && existing.resultDigest === result.resultDigest) return { ok: true, created: false, dispatched: false, proposal };
    return { ok: false, reason: 'conflict', existing };
  }
  // A call marked run without its output (a store written before both were one write) keeps its dispatch time.
  const dispatched = proposal.state === 'proposed';
  const after: Proposal = { ...proposal, state: 'dispatched', dispatchedAt: dispatched ? output.at : proposal.dispatchedAt, result };
  return { ok: true, created: true, dispatched, proposal: after };
}
