import { HTTPException } from 'hono/http-exception';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.ts';
import { toApiError } from './to-api-error.ts';

describe('toApiError', () => {
  it('keeps typed errors and maps HTTP exceptions', () => {
    const typed = new ApiError('expired', 'the request has expired');
    expect(toApiError(typed)).toBe(typed);
    expect(toApiError(new HTTPException(413)).code).toBe('payload_too_large');
    expect(toApiError(new HTTPException(400)).code).toBe('invalid_request');
  });

  it('never passes on the message or stack of an unexpected error', () => {
    const error = toApiError(new TypeError('Cannot read properties of undefined (reading "secret") at /srv/app.js:1'));
    expect(error.toBody()).toEqual({ error: { code: 'internal_error', message: 'internal error' } });
    expect(error.status).toBe(500);
  });
});
