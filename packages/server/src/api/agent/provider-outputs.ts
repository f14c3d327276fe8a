import { Id, ProviderOutputBody } from '@countersign/core/wire';
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
 * POST /runs/:runId/provider-outputs (`GatePort.recordProviderOutput`): the digest of a
 * hosted tool's output as the model's provider produced it, for a call of the agent's run
 * that the provider ran. Another agent's call, or a call the runtime runs, answers 404.
 */
export function providerOutputRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/runs/:runId/provider-outputs', requireAgent(services), async (c) => {
    const runId = c.req.param('runId');
    if (!Id.safeParse(runId).success) throw new ApiError('invalid_request', 'runId must be a non-empty id of at most 256 characters');
    const body = validate(ProviderOutputBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.recordProviderOutput({ runId, ...body }, agentOf(c));
    if (outcome.ok) return jsonResponse(c, outcome);
    if (outcome.reason === 'not_found') throw new ApiError('not_found', outcome.message);
    if (outcome.reason === 'result_conflict') throw new ApiError('result_conflict', outcome.message);
    if (outcome.reason === 'store_unavailable') throw new ApiError('store_unavailable', 'the approval store is unavailable');
    throw new ApiError('invalid_request', outcome.message);
  });
  return routes;
}
