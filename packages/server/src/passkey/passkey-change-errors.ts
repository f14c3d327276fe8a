import type { PasskeyChangeFailure } from '@countersign/core/passkey';
import { ApiError } from '../errors/api-error.ts';

/** A refused passkey change as the API answers it. */
export function passkeyChangeError(reason: PasskeyChangeFailure | 'invalid_registration', message: string): ApiError {
  switch (reason) {
    case 'step_up_required':
      return new ApiError('step_up_required', message);
    case 'step_up_invalid':
      return new ApiError('step_up_invalid', message);
    case 'not_found':
      return new ApiError('not_found', message);
    case 'credential_exists':
    case 'public_key_exists':
    case 'invalid_registration':
      return new ApiError('invalid_request', `passkey not registered: ${message}`);
  }
}
