export { evidenceJson, readPasskeyAssertion, readPasskeyEvidence, type AssertionRead } from './assertion-shape.ts';
export {
  type DecisionToSign,
  PASSKEY_CLAIMS_TYPE,
  PASSKEY_CLAIMS_VERSION,
  type PasskeyDecisionClaims,
  passkeyChallenge,
  passkeyChallengeText,
  passkeyDecisionClaims,
} from './decision-claims.ts';
export { checkPasskeyEvidence, type OfflineAssertionCheck, type PasskeyEvidenceProblem, type PasskeyEvidenceReport } from './evidence-check.ts';
export { counterAdvances, MemoryPasskeyStore } from './memory-passkey-store.ts';
export type {
  AddCredentialResult,
  PasskeyAssertion,
  PasskeyCheck,
  PasskeyCredential,
  PasskeyEvidence,
  PasskeyFailure,
  PasskeyStore,
  PasskeyVerifier,
} from './types.ts';
