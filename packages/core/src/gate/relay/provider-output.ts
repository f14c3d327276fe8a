import type { AuditEvent } from '../../audit/types.ts';
import { canonicalizeArguments } from '../../canonical/canonicalize-arguments.ts';
import type { RecordProviderOutputOutcome } from '../../ledger/types.ts';
import { idProblem } from '../../call-ids.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from '../common/agent.ts';
import { auditedWrite } from '../common/audited-write.ts';
import { errorMessage, eventAbout } from '../common/call-records.ts';
import type { GateDeps } from '../config.ts';
import { RELAY_CONTENT_LIMITS } from './relayed-forms.ts';

/**
 * What an integration reports once the model's provider ran a hosted tool the gate recorded
 * as the provider's (`executedBy: 'provider'`): the digest of the tool's output exactly as
 * the provider produced it (`providerOutputDigest`), never the output itself.
 */
export interface ProviderOutputReport {
  runId: string;
  /** The provider's id for the hosted call (a Messages `srvtoolu_…`, a Responses item id). */
  callId: string;
  /** SHA-256 (hex) of the output's RFC 8785 JSON (`providerOutputDigest`). */
  outputDigest: string;
}

export type ProviderOutputOutcome =
  /** `duplicate`: this digest was already recorded for the call. */
  | { ok: true; duplicate: boolean }
  /**
   * `not_found`: no call of the run by this agent that the provider ran; `result_conflict`:
   * another output was recorded for the call first (it stands).
   */
  | { ok: false; reason: 'invalid_request' | 'not_found' | 'result_conflict' | 'store_unavailable'; message: string };

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * The digest a provider's hosted-tool output is recorded and relay-checked by: SHA-256 of
 * its RFC 8785 JSON, as `checkRelayed` reads relayed content that is not text (so key order
 * and whitespace never matter, nothing else is ignored). Undefined for a value without a
 * lossless JSON form (nothing could match it).
 */
export function providerOutputDigest(output: unknown): string | undefined {
  try {
    return canonicalizeArguments(output, { ...RELAY_CONTENT_LIMITS, requireObject: false }).digest;
  } catch {
    return undefined;
  }
}

/**
 * Records the output of a hosted tool the provider ran as the call's result, so the output
 * the client later sends back to the model is relay-checked like any tool result
 * (`checkRelayed`: only that output, canonically equal, passes). The call is marked run
 * (`dispatch` record, `executedBy: provider`) and its result recorded (`result` record)
 * once, in one ledger write with both records (`LedgerStore.recordProviderOutput`): no
 * call is ever marked run without its output. Authorize still refuses it
 * (`provider_executed`). Never throws.
 */
export async function recordProviderOutput(deps: GateDeps, report: ProviderOutputReport, agent: Agent = DEFAULT_AGENT): Promise<ProviderOutputOutcome> {
  const invalid = reportProblem(report);
  if (invalid !== undefined) return { ok: false, reason: 'invalid_request', message: invalid };
  try {
    const found = await deps.ledger.findProposalByCall(report.runId, report.callId);
    // Another agent's call, or a call the runtime runs, reads like no call at all: only the provider's own calls take an output.
    if (found === undefined || !isOwnedBy(found.agent, agent) || found.executedBy !== 'provider') {
      return { ok: false, reason: 'not_found', message: `no call ${report.callId} the provider ran in run ${report.runId}` };
    }
    const now = deps.clock();
    const dispatchEvent: AuditEvent = { ...eventAbout(found, 'dispatch', now), detail: { executedBy: 'provider' } };
    const resultEvent: AuditEvent = { ...eventAbout(found, 'result', now), detail: { resultDigest: report.outputDigest, executedBy: 'provider' } };
    const recorded = await auditedWrite<RecordProviderOutputOutcome>(
      deps,
      (audit) => deps.ledger.recordProviderOutput(found.proposalId, { resultDigest: report.outputDigest, at: now }, audit),
      (r) => (r.ok && r.created ? (r.dispatched ? [dispatchEvent, resultEvent] : [resultEvent]) : []),
    );
    if (recorded.ok) return { ok: true, duplicate: !recorded.created };
    if (recorded.reason === 'conflict') return { ok: false, reason: 'result_conflict', message: `another output was recorded for call ${report.callId} first; it stands` };
    return { ok: false, reason: 'not_found', message: `no call ${report.callId} the provider ran in run ${report.runId}` };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `the output was not recorded: ${errorMessage(error)}` };
  }
}

function reportProblem(report: ProviderOutputReport): string | undefined {
  if (typeof report !== 'object' || report === null) return 'the report must be an object';
  const problem = idProblem('runId', report.runId) ?? idProblem('callId', report.callId);
  if (problem !== undefined) return problem;
  if (typeof report.outputDigest !== 'string' || !DIGEST.test(report.outputDigest)) return 'outputDigest must be a SHA-256 digest (64 lowercase hex characters)';
  return undefined;
}
