import type { Agent } from '@countersign/core/gate';
import type { Context } from 'hono';
import type { AppEnv } from '../app/env.ts';
import { ApiError } from '../errors/api-error.ts';

/**
 * The authenticated agent runtime of this request, as the gate knows agents: its name
 * is the owner of the runs it starts, and its principals limit whom it may act for.
 */
export function agentOf(c: Context<AppEnv>): Agent {
  const identity = c.get('identity');
  if (identity?.kind !== 'agent') throw new ApiError('forbidden', 'this route is for agent runtimes');
  return { id: identity.name, ...(identity.principals === undefined ? {} : { principals: identity.principals }) };
}
