export { type Action, type CallSpec, type Fault, type Step, type StepOptions, stepArbitrary } from './actions.ts';
export { FaultLedger, InjectedFault } from './fault-ledger.ts';
export { LifecycleViolation } from './invariants.ts';
export { initialState, type ModelState, step } from './model.ts';
export { KNOWN_DEFECTS, type KnownDefect, MODEL_POLICY_YAML } from './rules.ts';
export { type KillableHarness, type KilledRunOptions, runKilledLifecycleModel } from './run-killed-lifecycle.ts';
export { emptyStats, type LifecycleRunOptions, type LifecycleStats, replayHistory, runLifecycleModel } from './run-lifecycle-model.ts';
export { type LifecycleHarness, type OpenedStores, RealSystem } from './system.ts';
export { describeLifecycleModel, type LifecycleBudget } from './describe-lifecycle-model.ts';
