import type { RecordResultOutcome, ResultRecord } from '../../ledger/types.ts';
import type { GateDeps } from '../config.ts';
import { settleLostWrite, type SettledWrite } from '../common/settle-lost-write.ts';

/**
 * A result write (`recordResult`) that threw, settled on a fresh read (`settleLostWrite`):
 * the call holds this result (same status and digest, the write-once rule's comparison),
 * so the write took effect; another result, or none, is no trace of it. A result is
 * recorded once, so a stored result equal to this one is answered as this write's.
 */
export function settleLostResult(deps: GateDeps, proposalId: string, result: ResultRecord, error: unknown): Promise<SettledWrite<RecordResultOutcome>> {
  return settleLostWrite(
    async (): Promise<RecordResultOutcome | undefined> => {
      const stored = (await deps.ledger.getProposal(proposalId))?.result;
      if (stored === undefined || stored.status !== result.status || stored.resultDigest !== result.resultDigest) return undefined;
      return { ok: true, created: true, result: stored };
    },
    error,
    'complete again with the same result (it answers duplicate if it was recorded)',
  );
}
