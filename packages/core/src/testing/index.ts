export {
  type Execution,
  FINANCE,
  FIXTURE_POLICY_YAML,
  FIXTURE_SECRET,
  type GateFixtureOptions,
  makeGateFixture,
} from './gate-fixture.ts';
export { type LedgerHarness, runLedgerConformance, sampleProposal } from './ledger-conformance.ts';
export { type AuditHarness, runAuditConformance } from './audit-conformance.ts';
export { type SessionRevocationHarness, runSessionRevocationConformance } from './session-conformance.ts';
export { type DefinitionStoreHarness, runDefinitionStoreConformance } from './definition-store-conformance.ts';
export { type PinningHarness, runDefinitionPinningConformance } from './definition-pinning-conformance.ts';
