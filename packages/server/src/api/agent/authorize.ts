import { AuthorizeBody, RecordedCallBody } from '@countersign/core/wire';
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
 * POST /authorize: everything dispatch does up to and including the atomic consume,
 * for an agent that runs the tool itself. The answer is a grant (the ledger's
 * canonical arguments to run) or the refusal dispatch would give; the tool need not be
 * hosted by this server (policy decides by name). An unknown call is a 404, the same
 * whether it does not exist or belongs to another agent.
 *
 * Not idempotent: a second authorize of the same call is `already_consumed`. A client
 * that lost the answer reads GET /calls/:proposalId instead of asking again, as does one
 * answered `outcome_unknown` (the store failed mid-consume: the gate's answer, in 200 like
 * every outcome).
 */
export function authorizeRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.post('/authorize', requireAgent(services), async (c) => {
    const body = validate(AuthorizeBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.authorize(body, agentOf(c));
    if (outcome.status === 'not_approved' && outcome.reason === 'unknown_call') {
      throw new ApiError('not_found', 'no such call was recorded by this agent');
    }
    return jsonResponse(c, outcome);
  });

  /**
   * POST /authorize/recorded: checks 3 and 4 for a runtime that has only the call it is
   * about to make (an MCP gateway's tools/call): it must match a recorded, undispatched
   * call of this agent's run (by call id when given, else by tool and canonical
   * arguments). Mismatches answer `tool_mismatch` / `args_mismatch`; no match, or another
   * agent's run, is a 404 (`unknown_call` to the client), audited either way.
   */
  routes.post('/authorize/recorded', requireAgent(services), async (c) => {
    const body = validate(RecordedCallBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.authorizeMatchingCall(body, agentOf(c));
    if (outcome.status === 'not_approved' && outcome.reason === 'unknown_call') {
      throw new ApiError('not_found', 'no recorded call of this agent matches');
    }
    return jsonResponse(c, outcome);
  });
  return routes;
}
