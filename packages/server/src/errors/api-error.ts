/**
 * Every error the HTTP API returns has one of these codes. Clients branch on the
 * code; the message is for people and never carries internal details (stack
 * traces, store errors, other callers' reasons).
 */
export type ApiErrorCode =
  | 'unauthenticated'
  | 'forbidden'
  | 'csrf_rejected'
  | 'not_found'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'malformed_json'
  | 'nesting_too_deep'
  | 'invalid_json_value'
  | 'unknown_field'
  | 'invalid_request'
  | 'invalid_arguments'
  | 'expired'
  | 'already_decided'
  | 'duplicate_approver'
  | 'edit_denied_by_policy'
  | 'not_approved'
  /** A revocation of a request whose approval was already used: the call ran or is running. */
  | 'already_consumed'
  /** A revocation of a request that is no longer pending or approved (consumed, denied, expired, revoked). */
  | 'not_revocable'
  /** A withdrawal by an approver who holds no approval on the request (never gave one, or already withdrew it). */
  | 'no_approval'
  /** PUT /tools: another agent registered this tool first; only it may change the definition. */
  | 'registered_by_other_agent'
  /** PUT /tools: the approval service itself hosts a tool of this name. */
  | 'tool_defined_in_process'
  /** A decision on a request under a passkey rule without a passkey assertion. */
  | 'passkey_required'
  /** A passkey assertion that does not verify for this call, decision and approver. */
  | 'passkey_invalid'
  /** Adding a second (or later) passkey, or removing one, without an assertion of one of the approver's own passkeys over that change. */
  | 'step_up_required'
  /** A step-up assertion that does not verify for this change and approver (another approver's passkey, another operation's challenge, no UV). */
  | 'step_up_invalid'
  | 'too_many_attempts'
  /** POST /runs/:runId/provider-outputs: another output of the provider was recorded for this call first; it stands. */
  | 'result_conflict'
  | 'store_unavailable'
  | 'internal_error';

const STATUS: Record<ApiErrorCode, 400 | 401 | 403 | 404 | 409 | 413 | 415 | 429 | 500 | 503> = {
  unauthenticated: 401,
  forbidden: 403,
  csrf_rejected: 403,
  not_found: 404,
  unsupported_media_type: 415,
  payload_too_large: 413,
  malformed_json: 400,
  nesting_too_deep: 400,
  invalid_json_value: 400,
  unknown_field: 400,
  invalid_request: 400,
  invalid_arguments: 400,
  expired: 409,
  already_decided: 409,
  duplicate_approver: 409,
  edit_denied_by_policy: 403,
  not_approved: 409,
  not_revocable: 409,
  no_approval: 409,
  already_consumed: 409,
  registered_by_other_agent: 409,
  tool_defined_in_process: 409,
  passkey_required: 403,
  passkey_invalid: 403,
  step_up_required: 403,
  step_up_invalid: 403,
  too_many_attempts: 429,
  result_conflict: 409,
  store_unavailable: 503,
  internal_error: 500,
};

/**
 * The message of a 503 whose write may have taken effect (the gate's `outcome_unknown`:
 * the store failed mid-write and could not be read back), so nobody reads it as "nothing happened".
 */
export const OUTCOME_UNKNOWN_MESSAGE = 'the approval store failed while recording this and may have committed it: read the request before trying again';

export type ApiErrorStatus = (typeof STATUS)[ApiErrorCode];

/** The JSON body of every error response. */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; status?: string | undefined };
}

/** Thrown by routes and middleware; the app's error handler turns it into `ApiErrorBody`. */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: ApiErrorStatus;
  /** For `not_approved`, `not_revocable`, `already_consumed`: the request's current status (pending, denied, …). */
  readonly requestStatus: string | undefined;

  constructor(code: ApiErrorCode, message: string, options?: { requestStatus?: string | undefined }) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = STATUS[code];
    this.requestStatus = options?.requestStatus;
  }

  toBody(): ApiErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.requestStatus === undefined ? {} : { status: this.requestStatus }),
      },
    };
  }
}

export function statusFor(code: ApiErrorCode): ApiErrorStatus {
  return STATUS[code];
}
