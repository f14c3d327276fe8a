export { type AuditCheckpointCheck, type AuditCheckpointClaims, verifyAuditCheckpoint } from './audit-checkpoint.ts';
export { decodeApprovalToken, type DecodedToken, type DecodeResult } from './decode.ts';
export { type DecisionClaims, type DecisionRecordCheck, signDecisionRecord, verifyDecisionRecord } from './decision-record.ts';
export { KeyError, type KeyErrorCode } from './errors.ts';
export { type ApprovalClaims, type CallClaims, type ExpectedCall, TOKEN_FORMAT_VERSION, TOKEN_TYPE, type TokenAlgorithm, type TokenHeader } from './format.ts';
export {
  decodeSecret,
  type Ed25519KeyEntry,
  ed25519KeyFromPem,
  generateEd25519Key,
  type HmacKeyEntry,
  hmacKey,
  type KeyEntry,
  Keyring,
  type KeyStatus,
  keyringFromEnv,
  MIN_SECRET_BYTES,
} from './keyring.ts';
export { type MintInput, mintApprovalToken } from './mint.ts';
export { type TokenRejection, type VerifyOptions, type VerifyResult, verifyApprovalToken } from './verify.ts';
export { TASK_SUMMARY_PURPOSE } from './derive-run-key.ts';
