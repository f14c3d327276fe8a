/**
 * Why a call to the approval service failed as a transport, not as a refusal.
 * Refusals (denied, not approved, unknown call, …) are outcomes and never thrown.
 */
export type ClientErrorCode =
  /** The server could not be reached (connection refused, reset, DNS). */
  | 'network'
  /** No answer within `timeoutMs`. For `authorize` this does NOT mean it failed: read `callStatus`. */
  | 'timeout'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** The agent token was refused (401). */
  | 'unauthorized'
  /** The agent may not do this (403). */
  | 'forbidden'
  /** The server refused the request as malformed or too large (4xx), where no outcome fits. */
  | 'bad_request'
  /** Too many failed attempts from this address (429). */
  | 'rate_limited'
  /** The server answered with something that is not the API's answer (not JSON, wrong shape). */
  | 'bad_response'
  /** The server failed (5xx) on every attempt. */
  | 'server_error';

/** A transport failure talking to the approval service, with a code to branch on. */
export class CountersignClientError extends Error {
  readonly code: ClientErrorCode;
  /** The HTTP status, when the server answered. */
  readonly httpStatus: number | undefined;
  /** The API's error code (`{ error: { code } }`), when the answer carried one. */
  readonly apiCode: string | undefined;

  constructor(code: ClientErrorCode, message: string, options: { httpStatus?: number | undefined; apiCode?: string | undefined; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CountersignClientError';
    this.code = code;
    this.httpStatus = options.httpStatus;
    this.apiCode = options.apiCode;
  }
}
