export * from './audit/index.ts';
export * from './canonical/index.ts';
export { type Clock, manualClock, systemClock } from './clock.ts';
export { sha256Hex } from './digest.ts';
export * from './gate/index.ts';
export * from './ledger/index.ts';
export * from './policy/index.ts';
export * from './token/index.ts';
export * from './session/index.ts';
