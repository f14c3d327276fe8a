export type * from './types.ts';
export { decisionRefusal, statusAfterDecision } from './decision-rules.ts';
export { eligibleUnder } from './eligibility-rule.ts';
export { effectiveStatus } from './effective-status.ts';
export { LedgerError, type LedgerErrorCode } from './errors.ts';
export { MemoryLedger, approvalConsumeFailure, recordResultOnce } from './memory-ledger.ts';
export { copyResult } from './copy-records.ts';
export { sameCall } from './same-call.ts';
export { editRefusal, editedRequestStatus, openedRequest } from './edit-rules.ts';
