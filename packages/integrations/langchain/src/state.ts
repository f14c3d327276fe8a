import { ReducedValue, StateSchema } from '@langchain/langgraph';
import { z } from 'zod';
import type { CountersignReason } from './refusal.ts';

/**
 * What the middleware remembers about one call the model made: the propose outcome the
 * gate gave when `afterModel` recorded the model's response. It lives in the graph state
 * (so it is checkpointed with the thread) but it is not evidence: whatever it says,
 * a call runs only after `authorize` checked it against the ledger, so a tampered entry
 * can only refuse a call, never run one.
 */
export type RecordedCall =
  | { status: 'allowed'; proposalId: string }
  | { status: 'approval_required'; proposalId: string; requestId: string }
  | { status: 'denied' | 'rejected'; proposalId?: string | undefined; reason: CountersignReason; message: string };

type RecordedCalls = Record<string, RecordedCall>;

/** The middleware's state channel: recorded calls by tool-call id, merged across model turns. */
export const countersignState = new StateSchema({
  countersignCalls: new ReducedValue(z.record(z.string(), z.custom<RecordedCall>()).default(() => ({})), {
    reducer: (current: RecordedCalls, next: RecordedCalls) => ({ ...current, ...next }),
  }),
});
