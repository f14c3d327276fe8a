export type * from './types.ts';
export { AppendListeners } from './append-listeners.ts';
export { buildRecord, canonicalRecordText, GENESIS_HASH, hashRecord } from './chain.ts';
export { type CheckpointSummary, DEFAULT_MAX_UNSIGNED_TAIL } from './checkpoint-tracker.ts';
export {
  CheckpointingAuditLog,
  type CheckpointingOptions,
  DEFAULT_CHECKPOINT_EVERY_MS,
  DEFAULT_CHECKPOINT_EVERY_RECORDS,
} from './checkpointing-audit-log.ts';
export { AuditLogError, type AuditLogErrorCode } from './errors.ts';
export { type JsonlAuditLogOptions, JsonlAuditLog } from './jsonl-audit-log.ts';
export { exportJsonl, type ParseJsonlFailureReason, type ParseJsonlResult, parseJsonl } from './jsonl.ts';
export { MemoryAuditLog } from './memory-audit-log.ts';
export {
  type ChainFailure,
  type ChainFailureReason,
  type ChainVerification,
  ChainVerifier,
  type VerifyChainOptions,
  verifyChain,
  verifyChainAsync,
} from './verify-chain.ts';
export { AUDIT_RECORD_FORMAT } from './record-format.ts';
export { type MintedToken, mintedTokenOf, type OpenedRequest, openedRequestOf, type RecordedVerdict, verdictOf } from './step-facts.ts';
