import type { DeniedReason, NotApprovedReason, ProposeOutcome } from '@countersign/core/gate';
import { ToolMessage } from '@langchain/core/messages';

type RejectedReason = Extract<ProposeOutcome, { status: 'rejected' }>['reason'];

/**
 * Why Countersign refused a call: the gate's own reason codes (`not_approved` / `denied`
 * from authorize, `rejected` from propose), plus `approval_edited` (the approver edited
 * the call in Countersign and the edited call could not be run in its place).
 */
export type CountersignReason = NotApprovedReason | DeniedReason | RejectedReason | 'approval_edited';

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

/**
 * The text the model sees in the refusal's `ToolMessage`:
 * `countersign:<status>:<reason>: <message>`. Stable, so `parseRefusal` recovers it.
 */
export function formatRefusal(denial: Pick<CountersignDenial, 'status' | 'reason' | 'message'>): string {
  return `countersign:${denial.status}:${denial.reason}: ${denial.message}`;
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
 * LangChain's native shape for a tool that did not run: a `ToolMessage` with
 * `status: 'error'` for the call's id. The model reads the text; the app reads the typed
 * denial in `additional_kwargs.countersign` (or `refusalOf(message)`). Nothing ran.
 */
export function refusalMessage(denial: CountersignDenial): ToolMessage {
  return new ToolMessage({
    content: formatRefusal(denial),
    tool_call_id: denial.toolCallId,
    name: denial.toolName,
    status: 'error',
    additional_kwargs: { countersign: { refused: true, ...denial } },
  });
}

/** The typed refusal in a `ToolMessage` (or its text), or undefined when it is not one. */
export function refusalOf(message: unknown): Pick<CountersignDenial, 'status' | 'reason' | 'message'> | undefined {
  if (typeof message === 'string') return parseRefusal(message);
  if (ToolMessage.isInstance(message) && message.status === 'error') return parseRefusal(message.content);
  return undefined;
}
