import type { ProposeOutcome } from '@countersign/core';
import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { requireAgent } from '../../auth/require-identity.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { validate } from '../../http/validate.ts';
import { ProposalsBody } from '../schemas.ts';

export type ProposalResult = ProposeOutcome & { callId: string };

/** POST /proposals: records every tool call of one model response, in order. */
export function proposalRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/proposals', requireAgent(services), async (c) => {
    const body = validate(ProposalsBody, await readJsonBody(c, services.bodyLimits));
    const outcomes: ProposalResult[] = [];
    for (const call of body.toolCalls) {
      const outcome = await services.gate.propose({
        runId: body.runId,
        sessionId: body.sessionId,
        principal: body.principal,
        callId: call.id,
        toolName: call.name,
        arguments: call.arguments,
        modelResponseRef: body.modelResponseRef,
      });
      // The agent runtime is inside the trust boundary: it gets the full outcome.
      outcomes.push({ ...outcome, callId: call.id });
      if (outcome.status === 'approval_required') {
        services.events.emit({ type: 'request.created', requestId: outcome.requestId });
      }
    }
    return c.json({ outcomes });
  });
  return routes;
}
