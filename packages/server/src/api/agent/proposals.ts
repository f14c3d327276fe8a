import type { ProposeOutcome } from '@countersign/core/gate';
import { ProposalsBody } from '@countersign/core/wire';
import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { agentOf } from '../../auth/agent-of.ts';
import { requireAgent } from '../../auth/require-identity.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { jsonResponse } from '../../http/security-headers.ts';
import { validate } from '../../http/validate.ts';

export type ProposalResult = ProposeOutcome & { callId: string };

/**
 * POST /proposals: records every tool call of one model response, in order, as the
 * authenticated agent's, in one operation (`gate.proposeResponse`). A run another agent started is a 404 (start a new run), and
 * a principal this agent may not act for is a 403: the whole response is refused.
 */
export function proposalRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/proposals', requireAgent(services), async (c) => {
    const body = validate(ProposalsBody, await readJsonBody(c, services.bodyLimits));
    // `modelResponseRef` is the wire's older name of `responseRef`, still accepted from
    // agents written against it; the gate knows only `responseRef`.
    const { modelResponseRef, ...response } = body;
    if (response.responseRef !== undefined && modelResponseRef !== undefined && response.responseRef !== modelResponseRef) {
      throw new ApiError('invalid_request', 'responseRef and modelResponseRef name the same field and must be equal');
    }
    const responseRef = response.responseRef ?? modelResponseRef;
    // One operation for the whole response (one transaction on SQLite and Postgres).
    const proposed = await services.gate.proposeResponse({ ...response, ...(responseRef === undefined ? {} : { responseRef }) }, agentOf(c));
    // Every call of a response shares its run and principal: one such refusal refuses the response.
    if (proposed.some((o) => o.status === 'rejected' && o.reason === 'run_owned_by_other_agent')) {
      throw new ApiError('not_found', `no run ${body.runId} for this agent (another agent started it); use a new run id`);
    }
    if (proposed.some((o) => o.status === 'rejected' && o.reason === 'principal_not_allowed')) {
      throw new ApiError('forbidden', `this agent may not act for ${body.principal}`);
    }
    // The agent runtime is inside the trust boundary: it gets the full outcome.
    const outcomes: ProposalResult[] = proposed.map((outcome, i) => ({ ...outcome, callId: body.toolCalls[i]!.id }));
    return jsonResponse(c, { outcomes });
  });
  return routes;
}
