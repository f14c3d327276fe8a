import type { AuditEvent } from '../audit/types.ts';
import { statusesAfter } from './decision-rules.ts';
import { LedgerError } from './errors.ts';
import type { AddDecisionResult, AuditByStatus, AuditFor, ConsumeResult, Decision, DecisionAudit, RecordProposalResult, RecordResultOutcome, StatusAfterDecision, WriteAudit } from './types.ts';

/** Whether a consume took effect: the outcome whose `AuditIfWritten` records are appended. */
export function consumeWritten(outcome: ConsumeResult): boolean {
  return outcome.ok;
}

/** Whether a recordProposal took effect: it recorded a new call (not an idempotent repeat, a conflict or another agent's run). */
export function proposalWritten(outcome: RecordProposalResult): boolean {
  return outcome.ok && outcome.created;
}

/** Whether a recordResult took effect (stored a result, not a repeat or a refusal). */
export function resultWritten(outcome: RecordResultOutcome): boolean {
  return outcome.ok && outcome.created;
}

/**
 * `audit` as a function of the outcome, for stores that learn the outcome before they
 * append (memory, SQLite: one synchronous transaction): `AuditIfWritten` records when
 * `written(outcome)`, none otherwise.
 */
export function auditForOutcome<R>(audit: WriteAudit<R> | undefined, written: (outcome: R) => boolean): AuditFor<R> | undefined {
  if (audit === undefined || typeof audit === 'function') return audit;
  const events = audit.ifWritten;
  return (outcome) => (written(outcome) ? events : []);
}

/**
 * A decision's `audit` as a function of the outcome, for stores that learn the outcome
 * before they append: given as `AuditByStatus`, the list of the status written, none
 * for a refusal. Throws (`invalid_input`, before anything is written) when a status
 * `decision` can lead to has no list.
 */
export function decisionAuditFor(audit: DecisionAudit | undefined, decision: Decision): AuditFor<AddDecisionResult> | undefined {
  if (audit === undefined || typeof audit === 'function') return audit;
  const byStatus = checkedByStatus(audit, decision);
  return (outcome) => (outcome.ok ? byStatus.get(outcome.request.status as StatusAfterDecision) ?? [] : []);
}

/** `audit.byStatus` for each status `decision` can lead to; throws `invalid_input` when one is missing. */
export function checkedByStatus(audit: AuditByStatus, decision: Decision): ReadonlyMap<StatusAfterDecision, readonly AuditEvent[]> {
  const lists = new Map<StatusAfterDecision, readonly AuditEvent[]>();
  for (const status of statusesAfter(decision)) {
    const events = Object.hasOwn(audit.byStatus, status) ? audit.byStatus[status] : undefined;
    if (!Array.isArray(events)) throw new LedgerError('invalid_input', `decision audit has no record list for status ${status}`);
    lists.set(status, events);
  }
  return lists;
}
