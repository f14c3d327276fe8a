import type { ProposalInput } from '../../ledger/types.ts';

/**
 * What `authorize` hands the runtime once an approval (or an allow verdict) has been
 * consumed: everything needed to run the call and to report its result. Plain JSON,
 * so it can cross a process boundary or sit in a durable engine's workflow history.
 *
 * A grant is NOT evidence by itself: `complete` re-reads the ledger by `proposalId`
 * and refuses a grant whose fields differ from the ledger's record (`grant_mismatch`),
 * so editing a stored grant changes nothing. (A grant presented to the gate that issued
 * it is compared with the record authorize consumed, held there, instead of a re-read.)
 */
/** The ledger's record of the call a grant is for, field for field (see `ProposalInput`). */
export type GrantedCall = Pick<
  ProposalInput,
  'proposalId' | 'runId' | 'sessionId' | 'principal' | 'agent' | 'callId' | 'toolName' | 'definitionDigest' | 'canonicalArgs' | 'argsDigest'
>;

export interface Grant extends GrantedCall {
  /** Format version of this object. */
  v: 1;
  /** For calls that needed approval: the consumed request, its token id and who approved. */
  requestId?: string | undefined;
  tokenId?: string | undefined;
  approvers?: string[] | undefined;
  /** Milliseconds since the epoch, from the gate's clock. */
  authorizedAt: number;
}

/** What the runtime reports after running a granted call. */
export type Completion = { status: 'succeeded'; result: unknown } | { status: 'failed'; error: string };

export type CompleteFailure =
  /** No dispatched call with this proposal id belongs to the caller. */
  | 'unknown_grant'
  /** The grant's fields are not the ledger's record of that call. */
  | 'grant_mismatch'
  /** The call was never authorized (still `proposed`). */
  | 'not_dispatched'
  /** A different result was already recorded for this call; the first one stands. */
  | 'result_conflict'
  | 'invalid_completion'
  | 'store_unavailable'
  /**
   * The store failed while recording the result and could not be read back: it may be
   * recorded (a reply lost after COMMIT). Not a refusal: complete again with the same
   * result, which answers `duplicate` if it was.
   */
  | 'outcome_unknown';

export type CompleteOutcome =
  | {
      ok: true;
      proposalId: string;
      resultDigest: string;
      /** True when this exact result had already been recorded (a retried `complete`). */
      duplicate: boolean;
    }
  | { ok: false; reason: CompleteFailure; message: string };

/**
 * Where a call stands, for operators and durable engines deciding what to do after a
 * crash. `dispatched` means the approval was spent and the runtime was cleared to run
 * the tool, but no result was recorded: it may have run or not ("ran, result unknown").
 * At most once: a `dispatched` call is never authorized again.
 */
export type CallState = 'proposed' | 'dispatched' | 'succeeded' | 'failed';

export interface CallStatus {
  proposalId: string;
  runId: string;
  callId: string;
  toolName: string;
  argsDigest: string;
  state: CallState;
  /** The approval request, when the call needed one, with its effective status. */
  request?: { requestId: string; status: string; expiresAt: number } | undefined;
  dispatchedAt?: number | undefined;
  resultDigest?: string | undefined;
  completedAt?: number | undefined;
}
