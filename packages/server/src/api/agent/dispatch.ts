import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { requireAgent } from '../../auth/require-identity.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { validate } from '../../http/validate.ts';
import { DispatchBody } from '../schemas.ts';

/**
 * POST /dispatch: the one checkpoint, over HTTP. The runtime names the call; what
 * runs is read from the ledger. The full outcome (with reason) goes back because
 * the agent runtime is inside the trust boundary.
 */
export function dispatchRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/dispatch', requireAgent(services), async (c) => {
    const body = validate(DispatchBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.dispatch({
      runId: body.runId,
      callId: body.callId,
      sessionId: body.sessionId,
      principal: body.principal,
      token: body.token,
      toolName: body.toolName,
      ...(body.arguments === undefined ? {} : { arguments: body.arguments }),
    });
    return c.json(outcome);
  });
  return routes;
}
