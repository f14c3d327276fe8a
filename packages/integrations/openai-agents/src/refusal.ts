import type { DeniedReason, NotApprovedReason, ProposeOutcome } from '@countersign/core/gate';

type RejectedReason = Extract<ProposeOutcome, { status: 'rejected' }>['reason'];

/**
 * Why Countersign refused a call: the gate's own reason codes (`not_approved` /
 * `denied` from authorize, `rejected` from propose), plus `approval_edited` (the
 * approver edited the call, so the call the model made is closed; the edited call is a
 * new one).
 */
export type CountersignReason = NotApprovedReason | DeniedReason | RejectedReason | 'approval_edited';

export type CountersignRefusalStatus = 'not_approved' | 'denied' | 'rejected';

/** A refusal, typed: what the app branches on and what a UI can render. */
export interface CountersignDenial {
  status: CountersignRefusalStatus;
  reason: CountersignReason;
  message: string;
  /** The SDK's `callId` of the function call. */
  callId: string;
  toolName: string;
  proposalId?: string | undefined;
}

/** Every refusal text the integration writes starts with this, so it can be parsed back. */
export const REFUSAL_PREFIX = 'countersign';

/**
 * The text the model sees as the tool's output (the `function_call_result` the SDK
 * writes for a failed or rejected call): `countersign:<status>:<reason>: <message>`.
 * Stable, so `parseRefusal` recovers the typed reason from the run's items.
 */
export function formatRefusal(denial: Pick<CountersignDenial, 'status' | 'reason' | 'message'>): string {
  return `${REFUSAL_PREFIX}:${denial.status}:${denial.reason}: ${denial.message}`;
}

const REFUSAL_TEXT = /^countersign:(not_approved|denied|rejected):([a-z_]+): ([\s\S]*)$/;

/** The typed reason inside a refusal text, or undefined when the text is not one. */
export function parseRefusal(text: unknown): Pick<CountersignDenial, 'status' | 'reason' | 'message'> | undefined {
  if (typeof text !== 'string') return undefined;
  const match = REFUSAL_TEXT.exec(text);
  if (match === null) return undefined;
  return { status: match[1] as CountersignRefusalStatus, reason: match[2] as CountersignReason, message: match[3] ?? '' };
}

/**
 * The typed refusal in a tool output as the SDK holds it: a `RunToolCallOutputItem`'s
 * `output`, a `function_call_result` item's `output` (a string or `{ type: 'text', text }`),
 * or the text itself. Undefined when the output is not a Countersign refusal.
 */
export function refusalOf(output: unknown): Pick<CountersignDenial, 'status' | 'reason' | 'message'> | undefined {
  if (typeof output === 'string') return parseRefusal(output);
  if (typeof output !== 'object' || output === null) return undefined;
  const { type, text } = output as { type?: unknown; text?: unknown };
  if (type === 'text') return parseRefusal(text);
  return undefined;
}
