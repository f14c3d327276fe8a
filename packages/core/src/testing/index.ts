export { type Clock, manualClock } from '../clock.ts';
export {
  type Execution,
  FINANCE,
  FIXTURE_SECRET,
  type GateFixtureOptions,
  makeGateFixture,
  requestView,
} from './gate-fixture.ts';
export { type LedgerHarness, runLedgerConformance } from './ledger-conformance.ts';
export { sampleProposal } from './ledger-samples.ts';
export { type ConsumeFault, faultyConsumeLedger } from './faulty-consume-ledger.ts';
export { lostAuthorizeReply } from './lost-authorize-reply.ts';
export { type EditedCallHarness, runEditedCallConformance } from './edited-call-conformance.ts';
export { type AuditHarness, runAuditConformance } from './audit-conformance.ts';
export { type AtomicAuditHarness, runAtomicAuditConformance } from './atomic-audit-conformance.ts';
export { type SessionRevocationHarness, runSessionRevocationConformance } from './session-conformance.ts';
export {
  type AdapterAttackHarness,
  type AdapterKitApp,
  type AdapterKitCall,
  type AdapterKitExecutions,
  type AdapterKitResume,
  describeAdapterAttacks,
  ATTACK_KIT_POLICY_YAML,
  attackKitTools,
  describeGateAttacks,
  type GateAttackAdapter,
  type InProcessAttackOptions,
  inProcessAttackAdapter,
  KIT_AGENTS,
  KIT_APPROVER,
  KIT_CHANGED_DEFINITION,
  KIT_PRINCIPAL,
  type KitAgent,
} from './attack-kit/index.ts';
export { type DefinitionStoreHarness, runDefinitionStoreConformance } from './definition-store-conformance.ts';
export { type PinningHarness, runDefinitionPinningConformance } from './definition-pinning-conformance.ts';
export { type PasskeyStoreHarness, runPasskeyStoreConformance } from './passkey-store-conformance.ts';
export { PASSKEY_POLICY_YAML } from './passkey-policy.ts';
export {
  expectIntentRefusalWithoutText,
  expectNoTaskRefusal,
  INTENT_SYSTEM_MARKER,
  INTENT_TASK,
  type IntentHarness,
  runIntentConformance,
} from './intent-conformance.ts';
export { BANK_TOOL_DEFINITIONS, integrationGate } from './integration-gate.ts';
export { type ProviderOutputHarness, runProviderOutputConformance } from './provider-output-conformance.ts';
export { lastUserMessageExtractor, oneToolMatcher } from './integration-intent.ts';
export {
  describeLifecycleModel,
  emptyStats,
  type KillableHarness,
  type KilledRunOptions,
  KNOWN_DEFECTS,
  type KnownDefect,
  type LifecycleBudget,
  type LifecycleHarness,
  type LifecycleRunOptions,
  type LifecycleStats,
  type OpenedStores,
  runKilledLifecycleModel,
  runLifecycleModel,
} from './lifecycle-model/index.ts';
