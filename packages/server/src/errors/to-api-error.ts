import { HTTPException } from 'hono/http-exception';
import { ApiError } from './api-error.ts';

/** Any thrown value as a typed ApiError; unknown failures become a bare `internal_error`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException) {
    switch (error.status) {
      case 413:
        return new ApiError('payload_too_large', 'request body is too large');
      case 415:
        return new ApiError('unsupported_media_type', 'unsupported content-type');
      case 401:
        return new ApiError('unauthenticated', 'authentication required');
      case 403:
        return new ApiError('forbidden', 'forbidden');
      case 404:
        return new ApiError('not_found', 'not found');
      default:
        if (error.status >= 400 && error.status < 500) return new ApiError('invalid_request', 'invalid request');
    }
  }
  // Never echo the message or stack of an unexpected error to the client.
  return new ApiError('internal_error', 'internal error');
}
