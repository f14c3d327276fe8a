import { serializeCanonical } from '../../canonical/serialize.ts';
import { sha256Hex } from '../../digest.ts';
import { emit } from '../../events/emit.ts';
import type { Proposal, RecordResultOutcome, ResultRecord } from '../../ledger/types.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from '../common/agent.ts';
import { auditBestEffort } from '../common/audit-safely.ts';
import { auditedWriteIfWritten, auditsAtomically } from '../common/audited-write.ts';
import { resultWritten } from '../../ledger/audit-if-written.ts';
import type { GateDeps } from '../config.ts';
import type { CompleteFailure, CompleteOutcome, Completion, Grant } from './grant.ts';
import { grantMismatch, grantOf } from './grant-of.ts';
import { takeIssuedCall } from './issued-grants.ts';
import { settleLostResult } from './lost-result.ts';
import { callIds, errorMessage, eventAbout } from '../common/call-records.ts';
import { type ProjectionDigests, resultProjections } from '../relay/projections.ts';

/** Longest error message a completion may carry (it is hashed, never stored, but it is read). */
const MAX_ERROR_LENGTH = 64 * 1024;

/**
 * Records what a granted call returned: the digest of the result (or of the error
 * message), once. The grant is checked against the ledger's record of the call, not
 * trusted; a retried `complete` with the same result is answered `duplicate: true`, a
 * different result is refused (`result_conflict`, audited) and the first one stands.
 * A grant this gate's `authorize` issued, unedited (the object, or its copy sent back over
 * HTTP), is checked against the record authorize consumed, held in memory, instead of
 * reading it back (once; see issued-grants.ts). Never throws.
 */
export async function complete(deps: GateDeps, grant: Grant, completion: Completion, agent: Agent = DEFAULT_AGENT): Promise<CompleteOutcome> {
  let proposal: Proposal | undefined;
  try {
    if (typeof grant !== 'object' || grant === null || typeof grant.proposalId !== 'string') {
      return await refuse(deps, undefined, 'unknown_grant', 'complete needs the grant that authorize returned', { agent: agent.id });
    }
    // A grant this gate's `authorize` just handed out, unedited: the call it consumed is
    // held, so there is nothing to read back (see issued-grants.ts). Once per grant.
    const issued = takeIssuedCall(deps, grant);
    if (issued !== undefined && isOwnedBy(issued.agent, agent)) return await completeDispatched(deps, issued, completion);
    // One ledger read: the call with its approval request, both checked against the grant.
    const found = await deps.ledger.getProposalWithRequest(grant.proposalId);
    // Another agent's call is answered exactly like a call that does not exist.
    if (found === undefined || !isOwnedBy(found.proposal.agent, agent)) {
      return await refuse(deps, undefined, 'unknown_grant', 'no dispatched call matches this grant', { proposalId: grant.proposalId, agent: agent.id });
    }
    proposal = found.proposal;
    if (proposal.state !== 'dispatched') return await refuse(deps, proposal, 'not_dispatched', 'this call was never authorized');
    const request = found.request;
    const field = grantMismatch(grant as unknown as Record<string, unknown>, grantOf(proposal, request));
    if (field !== undefined) return await refuse(deps, proposal, 'grant_mismatch', `grant field ${field} is not the ledger's record of this call`);
    return await completeDispatched(deps, proposal, completion);
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger or audit store failed: ${errorMessage(error)}` };
  }
}

/**
 * `complete` for the gate's own dispatch, which holds the proposal `authorize` just
 * consumed in this same call: the grant was built from it, so the runtime checks (read
 * the call back, rebuild and compare the grant) have nothing to catch and are skipped.
 * The ledger write itself still refuses a call that is not dispatched or already has a
 * different result. Never throws.
 */
export async function completeDispatched(deps: GateDeps, proposal: Proposal, completion: Completion): Promise<CompleteOutcome> {
  // One async layer (this is on every dispatch): the write and its outage answer together.
  try {
    const digested = completionDigest(completion);
    if ('problem' in digested) return await refuse(deps, proposal, 'invalid_completion', digested.problem);
    const { digest, projections } = digested;

    const at = deps.clock();
    const resultEvent = eventAbout(proposal, 'result', at);
    if (completion.status === 'failed') resultEvent.reason = 'tool_failed';
    resultEvent.detail = { resultDigest: digest };
    let recorded: RecordResultOutcome;
    const atomic = auditsAtomically(deps);
    const result: ResultRecord =
      projections === undefined ? { status: completion.status, resultDigest: digest, at } : { status: completion.status, resultDigest: digest, projections, at };
    try {
      // One transaction when the store holds both: the result and its record land together.
      // The record goes with the write, appended only if this call stores the result.
      recorded = await auditedWriteIfWritten<RecordResultOutcome>(deps, (audit) => deps.ledger.recordResult(proposal.proposalId, result, audit), [resultEvent], resultWritten);
    } catch (error) {
      // Two steps: the ledger may hold the result (a retry answers duplicate); the missing audit record is the outage to report.
      if (!atomic) return { ok: false, reason: 'store_unavailable', message: `result recorded, but the audit log failed: ${errorMessage(error)}` };
      // One step whose reply may be lost after COMMIT: the store is read again before
      // anything is said (invariant 6), and a result it holds is answered as recorded.
      const settled = await settleLostResult(deps, proposal.proposalId, result, error);
      if (settled.settled === 'not_written') throw error;
      if (settled.settled === 'unknown') return { ok: false, reason: 'outcome_unknown', message: settled.message };
      recorded = settled.value;
    }
    if (!recorded.ok) {
      if (recorded.reason === 'conflict') {
        return await refuse(deps, proposal, 'result_conflict', 'a different result was already recorded for this call; the first one stands', {
          resultDigest: digest,
          recordedDigest: recorded.existing.resultDigest,
        });
      }
      return await refuse(deps, proposal, recorded.reason === 'not_found' ? 'unknown_grant' : 'not_dispatched', `result refused: ${recorded.reason}`);
    }
    const { runId, proposalId, callId, toolName } = proposal;
    if (!recorded.created) return { ok: true, proposalId, resultDigest: digest, duplicate: true };
    // (The fields of callIds written out: no intermediate object on every dispatch.)
    emit(deps.events, { type: 'completed', at, status: completion.status, runId, proposalId, callId, toolName });
    return { ok: true, proposalId, resultDigest: digest, duplicate: false };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger or audit store failed: ${errorMessage(error)}` };
  }
}

/** Digest of a tool result; results that are not JSON (functions, cycles) hash their string form. */
export function digestResult(result: unknown): string {
  try {
    return sha256Hex(serializeCanonical(result ?? null));
  } catch {
    return sha256Hex(String(result));
  }
}

/**
 * The digest a completion records and, for a result, the digests of the forms a runtime
 * may relay to the model (check 5); or why it is not a completion (it may come from JSON).
 */
function completionDigest(completion: Completion): { digest: string; projections?: ProjectionDigests } | { problem: string } {
  if (typeof completion !== 'object' || completion === null) return { problem: 'a completion must be an object' };
  const status: unknown = completion.status;
  if (status === 'succeeded') {
    const result = (completion as { result?: unknown }).result;
    const projections = resultProjections(result);
    // The `json` projection is the canonical digest `digestResult` computes: computed once.
    return { digest: projections.json ?? digestResult(result), projections };
  }
  if (status !== 'failed') return { problem: `completion status must be "succeeded" or "failed", not ${JSON.stringify(status) ?? 'undefined'}` };
  const error: unknown = (completion as { error?: unknown }).error;
  if (typeof error !== 'string' || error.length > MAX_ERROR_LENGTH) {
    return { problem: `a failed completion needs an error message of at most ${MAX_ERROR_LENGTH} characters` };
  }
  return { digest: sha256Hex(error) };
}

async function refuse(
  deps: GateDeps,
  proposal: Proposal | undefined,
  reason: CompleteFailure,
  message: string,
  detail: Record<string, string> = {},
): Promise<CompleteOutcome> {
  const at = deps.clock();
  const base = proposal ? eventAbout(proposal, 'rejection', at) : { type: 'rejection' as const, at };
  await auditBestEffort(deps.audit, { ...base, reason, detail: { status: 'complete_refused', ...detail } });
  emit(deps.events, { type: 'rejected', at, stage: 'complete', reason, ...(proposal ? callIds(proposal) : {}) });
  return { ok: false, reason, message };
}
