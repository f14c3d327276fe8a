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
export { type EventWatch, isAboutRequest, type Wake, watchEvents } from './wait-for-event.ts';
