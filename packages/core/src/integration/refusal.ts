import type { DeniedReason, NotApprovedReason, ProposeOutcome } from '../gate/index.ts';

type RejectedReason = Extract<ProposeOutcome, { status: 'rejected' }>['reason'];

/**
 * Why Countersign refused a call, as a framework integration reports it: the gate's own
 * reason codes (`not_approved` / `denied` from authorize, `rejected` from propose), plus
 * `approval_edited` (the approver edited the call in Countersign, so the call the model
 * made is closed; the edited call is a new one). An integration adds its own codes
 * through `Extra` (e.g. `'provider_executed'`).
 */
export type CountersignReason<Extra extends string = never> = NotApprovedReason | DeniedReason | RejectedReason | 'approval_edited' | Extra;

export type CountersignRefusalStatus = 'not_approved' | 'denied' | 'rejected';

/** The part of a refusal its text carries (what `parseRefusal` recovers). */
export interface RefusalText<Reason extends string = CountersignReason> {
  status: CountersignRefusalStatus;
  reason: Reason;
  message: string;
}

/** A refusal, typed: what the app server branches on and what the UI can render. */
export interface CountersignDenial<Reason extends string = CountersignReason> extends RefusalText<Reason> {
  toolCallId: string;
  toolName: string;
  proposalId?: string | undefined;
}

/** Every refusal text an integration writes starts with this, so it can be parsed back. */
export const REFUSAL_PREFIX = 'countersign';

/**
 * The text form the model and the UI see (a tool error's message, a refused tool's
 * output): `countersign:<status>:<reason>: <message>`. Stable, so `parseRefusal` can
 * recover the typed reason.
 */
export function formatRefusal(denial: RefusalText<string>): string {
  return `${REFUSAL_PREFIX}:${denial.status}:${denial.reason}: ${denial.message}`;
}

const REFUSAL_TEXT = /^countersign:(not_approved|denied|rejected):([a-z_]+): ([\s\S]*)$/;

/** The typed reason inside a refusal text, or undefined when the text is not one. */
export function parseRefusal<Reason extends string = CountersignReason>(text: unknown): RefusalText<Reason> | undefined {
  if (typeof text !== 'string') return undefined;
  const match = REFUSAL_TEXT.exec(text);
  if (match === null) return undefined;
  return { status: match[1] as CountersignRefusalStatus, reason: match[2] as Reason, message: match[3] ?? '' };
}

/**
 * A refusal thrown to a framework that shows a refused call as an error (the AI SDK's tool
 * error, an Agents handoff): the text form is the message the model sees, `countersign`
 * the typed refusal the app's code branches on. Nothing ran.
 */
export class CountersignCallRefusal<Denial extends RefusalText<string>> extends Error {
  readonly code = 'countersign_refused' as const;
  readonly countersign: Denial;

  constructor(denial: Denial) {
    super(formatRefusal(denial));
    this.name = 'CountersignCallRefusal';
    this.countersign = denial;
  }
}

/** A refusal of the machine: the gate's typed reason, nothing ran. */
export interface GuardedRefusal {
  status: CountersignRefusalStatus;
  reason: CountersignReason;
  message: string;
  proposalId?: string | undefined;
}
