import type { Approver } from '@countersign/core/gate';
import type { Context } from 'hono';
import type { AppEnv } from '../app/env.ts';
import { ApiError } from '../errors/api-error.ts';

/** The authenticated approver of this request: identity comes from authentication, never from a body. */
export function approverOf(c: Context<AppEnv>): Approver {
  const identity = c.get('identity');
  if (identity?.kind !== 'approver') throw new ApiError('forbidden', 'this route is for approvers');
  return identity.approver;
}
