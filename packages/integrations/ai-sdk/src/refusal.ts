import {
  CountersignCallRefusal,
  type CountersignReason as KitReason,
  type CountersignDenial as KitDenial,
  type CountersignRefusalStatus,
  formatRefusal,
  parseRefusal as parseKitRefusal,
  REFUSAL_PREFIX,
} from '@countersign/core/integration';

export { type CountersignRefusalStatus, formatRefusal, REFUSAL_PREFIX };

/**
 * Why Countersign refused a call, as the integration reports it: the kit's reasons
 * (the gate's codes and `approval_edited`: the approver edited the call, so the call the
 * model made is closed; the edited call is a new one) plus `provider_executed` (the
 * provider runs the tool itself, so no checkpoint here can hold it: refused by default).
 */
export type CountersignReason = KitReason<'provider_executed'>;

/** A refusal, typed: what the app server branches on and what the UI can render. */
export type CountersignDenial = KitDenial<CountersignReason>;

// The SDK renders a thrown error as `String(error)`, so the class name may lead.
const CLASS_PREFIX = 'CountersignRefusal: ';

/** The typed reason inside a refusal text, or undefined when the text is not one. */
export function parseRefusal(text: unknown): Pick<CountersignDenial, 'status' | 'reason' | 'message'> | undefined {
  if (typeof text === 'string' && text.startsWith(CLASS_PREFIX)) return parseKitRefusal<CountersignReason>(text.slice(CLASS_PREFIX.length));
  return parseKitRefusal<CountersignReason>(text);
}

/**
 * Thrown from a guarded tool's `execute` when Countersign refuses the call: the AI SDK
 * turns it into its native `tool-error` part (the model sees `message`, the app's code
 * sees this object with its typed `countersign` field). Nothing ran.
 */
export class CountersignRefusal extends CountersignCallRefusal<CountersignDenial> {
  constructor(denial: CountersignDenial) {
    super(denial);
    this.name = 'CountersignRefusal';
  }
}

/** The typed refusal in an AI SDK part's error or denial reason (a `CountersignRefusal`, or its text). */
export function refusalOf(value: unknown): Pick<CountersignDenial, 'status' | 'reason' | 'message'> | undefined {
  if (value instanceof CountersignRefusal) return value.countersign;
  if (value instanceof Error) return parseRefusal(value.message);
  return parseRefusal(value);
}
