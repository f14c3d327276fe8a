import { Id, RelayedBody } from '@countersign/core/wire';
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
 * POST /runs/:runId/relayed (CASA check 5): the tool results the agent's runtime is
 * about to relay to the model, each checked against the result recorded for its call.
 * The answer is the check's outcome (200): `{ ok: true, checked }`, or `relay_refused`
 * with every failure (`unknown_call`, `not_executed`, `result_mismatch`), each audited.
 * Another agent's run answers exactly like an unknown one: every call `unknown_call`.
 */
export function relayedRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/runs/:runId/relayed', requireAgent(services), async (c) => {
    const runId = c.req.param('runId');
    if (!Id.safeParse(runId).success) throw new ApiError('invalid_request', 'runId must be a non-empty id of at most 256 characters');
    const body = validate(RelayedBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.checkRelayed({ runId, toolMessages: body.toolMessages }, agentOf(c));
    if (outcome.ok || outcome.reason === 'relay_refused') return jsonResponse(c, outcome);
    if (outcome.reason === 'store_unavailable') throw new ApiError('store_unavailable', 'the approval store is unavailable');
    throw new ApiError('invalid_request', outcome.message);
  });
  return routes;
}
