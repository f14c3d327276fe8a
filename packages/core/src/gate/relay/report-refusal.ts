import type { AuditEvent } from '../../audit/types.ts';
import { sha256Hex } from '../../digest.ts';
import type { Proposal } from '../../ledger/types.ts';
import { emit } from '../../events/emit.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from '../common/agent.ts';
import { idProblem } from '../../call-ids.ts';
import type { GateDeps } from '../config.ts';
import { errorMessage } from '../common/call-records.ts';
import { MAX_REFUSAL_DETAIL, type RefusalReport, type RefusalReportOutcome, UNPRINTABLE_IN_DETAIL } from './refusal-report.ts';

const REASONS = new Set(['unknown_shape', 'call_refused']);

/**
 * Appends the audit record of a refusal an integration made itself (a `rejection` with
 * the report's reason, `detail.status: integration_refused`, the reporting agent's id).
 * The run is checked like every read: an agent writes only into the trail of runs it
 * owns, or of runs the ledger has not seen yet (a refusal before the first proposal).
 * A `call_refused` report must name a call of the run this agent recorded and that never
 * ran (`proposed`): after its record, the refusal text's digest is recorded for that call
 * (`recordCallRefusal`), so relaying exactly that text is recognised (`checkRelayed`).
 * Never throws.
 */
export async function reportRefusal(deps: GateDeps, report: RefusalReport, agent: Agent = DEFAULT_AGENT): Promise<RefusalReportOutcome> {
  const invalid = reportProblem(report);
  if (invalid !== undefined) return { ok: false, reason: 'invalid_request', message: invalid };
  let event: AuditEvent;
  let refusedCall: Proposal | undefined;
  try {
    const owner = await deps.ledger.getRunOwner(report.runId);
    if (owner !== undefined && !isOwnedBy(owner, agent)) return { ok: false, reason: 'not_found', message: `no run ${report.runId}` };
    if (report.reason === 'call_refused') {
      // Only a call this agent recorded, that never ran: a refusal is never recorded over a call that may have run.
      const call = report.callId === undefined ? undefined : await deps.ledger.findProposalByCall(report.runId, report.callId);
      if (call === undefined || !isOwnedBy(call.agent, agent)) return { ok: false, reason: 'not_found', message: `no call ${String(report.callId)} in run ${report.runId}` };
      if (call.state !== 'proposed') return { ok: false, reason: 'invalid_request', message: `call ${call.callId} was dispatched: it was not refused` };
      refusedCall = call;
    }
    event = {
      type: 'rejection',
      at: deps.clock(),
      runId: report.runId,
      ...(report.sessionId === undefined ? {} : { sessionId: report.sessionId }),
      ...(report.callId === undefined ? {} : { callId: report.callId }),
      reason: report.reason,
      // The principal as the agent states it (not checked here: nothing runs on it), beside the agent's authenticated id.
      detail: { status: 'integration_refused', what: report.detail, agent: agent.id, ...(report.principal === undefined ? {} : { principal: report.principal }) },
    };
    await deps.audit.append(event);
    // After its audit record: a ledger failure here leaves the refusal unrecognised (refused when relayed), never unaudited.
    if (refusedCall !== undefined) await deps.ledger.recordCallRefusal?.(refusedCall.proposalId, sha256Hex(report.detail), event.at);
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `the refusal was not recorded: ${errorMessage(error)}` };
  }
  emit(deps.events, { type: 'rejected', at: event.at, stage: 'relay', reason: report.reason, runId: report.runId, ...(report.callId === undefined ? {} : { callId: report.callId }) });
  return { ok: true };
}

function reportProblem(report: RefusalReport): string | undefined {
  if (typeof report !== 'object' || report === null) return 'the report must be an object';
  for (const field of ['runId', 'sessionId', 'principal', 'callId'] as const) {
    const value: unknown = report[field];
    if (field !== 'runId' && value === undefined) continue;
    const problem = idProblem(field, value);
    if (problem !== undefined) return problem;
  }
  if (!REASONS.has(report.reason)) return 'reason must be unknown_shape or call_refused';
  if (report.reason === 'call_refused' && report.callId === undefined) return 'a call_refused report names its callId';
  const detail: unknown = report.detail;
  if (typeof detail !== 'string' || detail.length === 0 || detail.length > MAX_REFUSAL_DETAIL || !detail.isWellFormed() || UNPRINTABLE_IN_DETAIL.test(detail)) {
    return `detail must be printable text of 1 to ${MAX_REFUSAL_DETAIL} characters`;
  }
  return undefined;
}
