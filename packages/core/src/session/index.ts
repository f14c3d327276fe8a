export { MemorySessionRevocations } from './memory-session-revocations.ts';
export type { SessionRevocationStore } from './types.ts';
