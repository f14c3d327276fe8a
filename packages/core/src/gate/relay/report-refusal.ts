import type { AuditEvent } from '../../audit/types.ts';
import { emit } from '../../events/emit.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from '../common/agent.ts';
import { idProblem } from '../../call-ids.ts';
import type { GateDeps } from '../config.ts';
import { errorMessage } from '../common/call-records.ts';
import { MAX_REFUSAL_DETAIL, type RefusalReport, type RefusalReportOutcome } from './refusal-report.ts';

const REASONS = new Set(['unknown_shape']);
// The detail is shown in audit views: printable text only, like the ids.
const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

/**
 * Appends the audit record of a refusal an integration made itself (a `rejection` with
 * the report's reason, `detail.status: integration_refused`, the reporting agent's id).
 * The run is checked like every read: an agent writes only into the trail of runs it
 * owns, or of runs the ledger has not seen yet (a refusal before the first proposal).
 * Never throws.
 */
export async function reportRefusal(deps: GateDeps, report: RefusalReport, agent: Agent = DEFAULT_AGENT): Promise<RefusalReportOutcome> {
  const invalid = reportProblem(report);
  if (invalid !== undefined) return { ok: false, reason: 'invalid_request', message: invalid };
  let event: AuditEvent;
  try {
    const owner = await deps.ledger.getRunOwner(report.runId);
    if (owner !== undefined && !isOwnedBy(owner, agent)) return { ok: false, reason: 'not_found', message: `no run ${report.runId}` };
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
  if (!REASONS.has(report.reason)) return 'reason must be unknown_shape';
  const detail: unknown = report.detail;
  if (typeof detail !== 'string' || detail.length === 0 || detail.length > MAX_REFUSAL_DETAIL || !detail.isWellFormed() || UNPRINTABLE.test(detail)) {
    return `detail must be printable text of 1 to ${MAX_REFUSAL_DETAIL} characters`;
  }
  return undefined;
}
