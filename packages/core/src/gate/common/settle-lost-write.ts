import { errorMessage } from './call-records.ts';

/**
 * What a write that threw instead of answering did, learned from the store before anyone
 * is told. Every write of the gate that can lose its reply settles through here: the
 * decision writes (addDecision, recordEdit, revokeApproval, withdrawApproval), propose
 * (the call and the approval request it opens) and complete (the result).
 */
export type SettledWrite<T> =
  /** The store shows the write: it took effect, and `value` is what it wrote. */
  | { settled: 'took_effect'; value: T }
  /** The store does not show it: nothing took effect, and trying again is safe. */
  | { settled: 'not_written' }
  /** The store could not be read either: nobody can say yet. */
  | { settled: 'unknown'; message: string };

/** What the caller of a decision write is told to do when nobody can say (the default). */
const READ_THE_REQUEST = 'read the request before deciding again';

/**
 * An error from a write is not a refusal: a connection cut after COMMIT reached the
 * database loses only the reply, and the write stands. So, as authorize does with a
 * consume whose reply was lost (`answerLostConsume`, #25 item 7), the store is asked
 * again on a fresh read (a SQL store's failed connection is not reused) before anything
 * is said, and a write that took effect is never reported as failed:
 * - `find` finds the write: it took effect, and the caller answers as if the reply had
 *   arrived;
 * - it does not: `not_written`, the caller answers `store_unavailable`;
 * - the read fails too: `unknown`, the caller answers `outcome_unknown` (with `advice`:
 *   what to do before trying again), never a failure.
 * `find` returns what the write wrote when the store shows it, undefined when not.
 */
export async function settleLostWrite<T>(find: () => Promise<T | undefined>, writeError: unknown, advice: string = READ_THE_REQUEST): Promise<SettledWrite<T>> {
  try {
    const value = await find();
    return value === undefined ? { settled: 'not_written' } : { settled: 'took_effect', value };
  } catch (readError) {
    return {
      settled: 'unknown',
      message: `the store failed while recording this and may have committed it (${errorMessage(writeError)}; reading it back failed too: ${errorMessage(readError)}): ${advice}`,
    };
  }
}
