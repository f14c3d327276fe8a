export { emit } from './emit.ts';
export { MemoryGateEvents } from './memory-gate-events.ts';
export type {
  CallIds,
  DefinitionPinStatus,
  DeliveredEvent,
  GateEvent,
  GateEventListener,
  GateEvents,
  GateEventType,
  RejectionStage,
} from './types.ts';
export { isAboutRequest, type Wake, waitForEvent } from './wait-for-event.ts';
