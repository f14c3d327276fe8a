import type { DeniedReason, NotApprovedReason, ProposeOutcome } from '@countersign/core/gate';

type RejectedReason = Extract<ProposeOutcome, { status: 'rejected' }>['reason'];

/**
 * Why Countersign refused a call, as the integration reports it: the gate's own reason
 * codes (`not_approved` / `denied` from authorize, `rejected` from propose), plus two
 * of the integration's: `approval_edited` (the approver edited the call, so the call the
 * model made is closed; the edited call is a new one) and `provider_executed` (the
 * provider runs the tool itself, so no checkpoint here can hold it: refused by default).
 */
export type CountersignReason = NotApprovedReason | DeniedReason | RejectedReason | 'approval_edited' | 'provider_executed';

export type CountersignRefusalStatus = 'not_approved' | 'denied' | 'rejected';

/** A refusal, typed: what the app server branches on and what the UI can render. */
export interface CountersignDenial {
  status: CountersignRefusalStatus;
  reason: CountersignReason;
  message: string;
  toolCallId: string;
  toolName: string;
  proposalId?: string | undefined;
}

/** Every refusal text the integration writes starts with this, so it can be parsed back. */
export const REFUSAL_PREFIX = 'countersign';

/**
 * The text form the model and the UI see (a tool error's message, an `execution-denied`
 * reason): `countersign:<status>:<reason>: <message>`. Stable, so `parseRefusal` can
 * recover the typed reason from a UI message.
 */
export function formatRefusal(denial: Pick<CountersignDenial, 'status' | 'reason' | 'message'>): string {
  return `${REFUSAL_PREFIX}:${denial.status}:${denial.reason}: ${denial.message}`;
}

// The SDK renders a thrown error as `String(error)`, so the class name may lead.
const REFUSAL_TEXT = /^(?:CountersignRefusal: )?countersign:(not_approved|denied|rejected):([a-z_]+): ([\s\S]*)$/;

/** The typed reason inside a refusal text, or undefined when the text is not one. */
export function parseRefusal(text: unknown): Pick<CountersignDenial, 'status' | 'reason' | 'message'> | undefined {
  if (typeof text !== 'string') return undefined;
  const match = REFUSAL_TEXT.exec(text);
  if (match === null) return undefined;
  return { status: match[1] as CountersignRefusalStatus, reason: match[2] as CountersignReason, message: match[3] ?? '' };
}

/**
 * Thrown from a guarded tool's `execute` when Countersign refuses the call: the AI SDK
 * turns it into its native `tool-error` part (the model sees `message`, the app's code
 * sees this object with its typed `countersign` field). Nothing ran.
 */
export class CountersignRefusal extends Error {
  readonly code = 'countersign_refused' as const;
  readonly countersign: CountersignDenial;

  constructor(denial: CountersignDenial) {
    super(formatRefusal(denial));
    this.name = 'CountersignRefusal';
    this.countersign = denial;
  }
}

/** The typed refusal in an AI SDK part's error or denial reason (a `CountersignRefusal`, or its text). */
export function refusalOf(value: unknown): Pick<CountersignDenial, 'status' | 'reason' | 'message'> | undefined {
  if (value instanceof CountersignRefusal) return value.countersign;
  if (value instanceof Error) return parseRefusal(value.message);
  return parseRefusal(value);
}
