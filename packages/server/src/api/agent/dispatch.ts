import { DispatchBody } from '@countersign/core/wire';
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
 * POST /dispatch: the one checkpoint, over HTTP. The runtime names the call by the
 * proposal id its propose returned; what runs is read from the ledger. The full
 * outcome (with reason) goes back because the agent runtime is inside the trust
 * boundary, except for an unknown call: that is a 404, the same answer whether the
 * call does not exist or belongs to another agent.
 */
export function dispatchRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/dispatch', requireAgent(services), async (c) => {
    const body = validate(DispatchBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.dispatch(
      {
        proposalId: body.proposalId,
        runId: body.runId,
        callId: body.callId,
        sessionId: body.sessionId,
        principal: body.principal,
        token: body.token,
        toolName: body.toolName,
        ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
      },
      agentOf(c),
    );
    if (outcome.status === 'not_approved' && outcome.reason === 'unknown_call') {
      throw new ApiError('not_found', 'no such call was recorded by this agent');
    }
    return jsonResponse(c, outcome);
  });
  return routes;
}
