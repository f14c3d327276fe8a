export {
  type AdapterAttackHarness,
  type AdapterKitApp,
  type AdapterKitCall,
  type AdapterKitExecutions,
  type AdapterKitResume,
  type AdapterAttackName,
  describeAdapterAttacks,
} from './adapter-attacks.ts';
export type { GateAttackAdapter } from './adapter.ts';
export { describeGateAttacks } from './describe-gate-attacks.ts';
export {
  ATTACK_KIT_POLICY_YAML,
  attackKitTools,
  KIT_AGENTS,
  KIT_APPROVER,
  KIT_CHANGED_DEFINITION,
  KIT_PINNED_DEFINITION,
  KIT_PRINCIPAL,
  type KitAgent,
} from './fixtures.ts';
export { type InProcessAttackOptions, inProcessAttackAdapter } from './in-process-adapter.ts';
