import type { AuditFor, ConsumeResult, RecordProposalResult, RecordResultOutcome, WriteAudit } from './types.ts';

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
