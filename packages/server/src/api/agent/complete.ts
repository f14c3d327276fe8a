import { CompleteBody } from '@countersign/core/wire';
import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { agentOf } from '../../auth/agent-of.ts';
import { requireAgent } from '../../auth/require-identity.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { jsonResponse } from '../../http/security-headers.ts';
import { validate } from '../../http/validate.ts';

/**
 * POST /complete: records the result of a call the agent ran under a grant. The grant
 * is checked against the ledger (editing it changes nothing); idempotent per grant, and
 * a different second result is refused (`result_conflict`). A grant for a call this
 * agent does not own is a 404, like one that does not exist.
 */
export function completeRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/complete', requireAgent(services), async (c) => {
    const { grant, completion } = validate(CompleteBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.complete(grant, completion, agentOf(c));
    if (!outcome.ok && outcome.reason === 'unknown_grant') throw new ApiError('not_found', 'no such call was authorized for this agent');
    return jsonResponse(c, outcome);
  });
  return routes;
}
