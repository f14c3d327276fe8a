export type * from './types.ts';
export { buildRecord, canonicalRecordText, GENESIS_HASH, hashRecord } from './chain.ts';
export {
  CHECKPOINT_WINDOW,
  type CheckpointOptions,
  type CheckpointSummary,
  DEFAULT_MAX_UNSIGNED_TAIL,
} from './checkpoint-tracker.ts';
export {
  CheckpointingAuditLog,
  type CheckpointingOptions,
  DEFAULT_CHECKPOINT_EVERY_MS,
  DEFAULT_CHECKPOINT_EVERY_RECORDS,
} from './checkpointing-audit-log.ts';
export { AuditLogError, type AuditLogErrorCode } from './errors.ts';
export { type JsonlAuditLogOptions, JsonlAuditLog } from './jsonl-audit-log.ts';
export { exportJsonl, type ParseJsonlFailureReason, type ParseJsonlResult, parseJsonl, recordLine } from './jsonl.ts';
export { MemoryAuditLog } from './memory-audit-log.ts';
export { AUDIT_EVENT_TYPES, auditEventProblem, auditRecordProblem, MAX_AUDIT_DETAIL_DEPTH } from './record-shape.ts';
export { type AuditDetailOptions, auditDetailFor, AUDIT_REDACTED, AUDIT_SECRET_KEY_PATTERN } from './redact.ts';
export {
  type ChainFailure,
  type ChainFailureReason,
  type ChainVerification,
  ChainVerifier,
  type VerifyChainOptions,
  verifyChain,
  verifyChainAsync,
} from './verify-chain.ts';
