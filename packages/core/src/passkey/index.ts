export { evidenceJson, readPasskeyAssertion, type AssertionRead } from './assertion-shape.ts';
export {
  PASSKEY_CHANGE_VERSION,
  PASSKEY_ENROL_TYPE,
  PASSKEY_REMOVE_TYPE,
  type PasskeyEnrolClaims,
  type PasskeyRemoveClaims,
  passkeyChangeChallenge,
  passkeyChangeChallengeText,
  passkeyEnrolClaims,
  passkeyRemoveClaims,
} from './change-claims.ts';
export { type ChainedRegistration, type ChainedRemoval, registrationEvent, removalEvent } from './change-events.ts';
export {
  type DecisionToSign,
  PASSKEY_CLAIMS_TYPE,
  PASSKEY_CLAIMS_VERSION,
  type PasskeyClaimsVersion,
  type PasskeyDecisionClaims,
  passkeyChallenge,
  passkeyChallengeText,
  passkeyDecisionClaims,
} from './decision-claims.ts';
export {
  checkPasskeyEvidence,
  type OfflineAssertionCheck,
  type PasskeyEvidenceOptions,
  type PasskeyEvidenceProblem,
  type PasskeyEvidenceReport,
} from './evidence-check.ts';
export { ledgerCopyProblems } from './ledger-copies.ts';
export { MemoryPasskeyStore } from './memory-passkey-store.ts';
export { type EnrolInput, enrolPasskey, type PasskeyChangeDeps, type PasskeyChangeFailure, type PasskeyChangeResult, type RemoveInput, removePasskeyAsOperator } from './passkey-changes.ts';
export type {
  AddCredentialOptions,
  AddCredentialResult,
  EnrolAuthority,
  PasskeyAssertion,
  PasskeyCheck,
  PasskeyCredential,
  PasskeyEvidence,
  PasskeyFailure,
  PasskeyStore,
  PasskeyVerifier,
} from './types.ts';
