import { Hono } from 'hono';
import type { AppEnv } from '../../app/env.ts';
import type { Services } from '../../app/services.ts';
import { agentOf } from '../../auth/agent-of.ts';
import { requireAgent } from '../../auth/require-identity.ts';
import { ApiError } from '../../errors/api-error.ts';
import { readJsonBody } from '../../http/read-json.ts';
import { validate } from '../../http/validate.ts';
import { ToolAdmissionBody, ToolsBody } from '@countersign/core/wire';

/**
 * PUT /tools: an agent declares the definitions of the tools it runs itself, so policy,
 * the approval page and pinning work for them. Registering never trusts a definition:
 * a new or changed one waits for review (unless the service trusts on first use), and
 * calls are refused `definition_mismatch` until then. The gate checks each definition.
 */
export function toolRoutes(services: Services): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.put('/tools', requireAgent(services), async (c) => {
    const body = validate(ToolsBody, await readJsonBody(c, services.bodyLimits));
    const outcome = await services.gate.registerTools(body.tools, agentOf(c));
    if (outcome.ok) return c.json({ tools: outcome.tools });
    switch (outcome.reason) {
      case 'invalid_definition':
        throw new ApiError('invalid_request', outcome.message);
      case 'store_unavailable':
        throw new ApiError('store_unavailable', 'the approval store is unavailable');
      default:
        // The gate's own reason as the code, so a client tells the two conflicts apart.
        throw new ApiError(outcome.reason, outcome.message);
    }
  });

  /**
   * POST /tools/admission: may the agent's registered tool be shown and called now (what
   * a remote MCP gateway asks for each tool it lists). The same admission as a call: a
   * changed definition moves the pin and opens its review. Another agent's tool is a 404,
   * the same as no tool: an agent can neither see nor stir another agent's reviews.
   */
  routes.post('/tools/admission', requireAgent(services), async (c) => {
    const body = validate(ToolAdmissionBody, await readJsonBody(c, services.bodyLimits));
    const admission = await services.gate.admitTool(body.toolName, agentOf(c));
    if (admission.ok) return c.json(admission);
    if (admission.reason === 'store_unavailable') throw new ApiError('store_unavailable', 'the approval store is unavailable');
    if (admission.reason === 'unknown_tool') throw new ApiError('not_found', 'no such tool was registered by this agent');
    return c.json(admission);
  });
  return routes;
}
