import { CountersignGuard, type CountersignGuardOptions } from './guard.ts';
import { guardModel } from './guard-model.ts';
import { guardTools } from './guard-tools.ts';
import { countersignToolApproval } from './tool-approval.ts';

/**
 * Countersign for one AI SDK request: wrap the model (records the model's calls), the
 * tools (execute only after `authorize`) and pass `toolApproval` (policy verdicts and
 * approval requests):
 *
 * ```ts
 * const cs = countersign({ port, context: { runId, sessionId, principal: `user:${user.id}` }, index });
 * const result = await generateText({ model: cs.model(model), tools: cs.tools(tools), toolApproval: cs.toolApproval, messages });
 * ```
 *
 * Tool results the client relays back in the history are checked against the results
 * recorded at `complete` before every model request (CASA check 5): an edited or
 * made-up result rejects the request with `CountersignRelayRefusal`.
 */
export function countersign(options: CountersignGuardOptions) {
  const guard = new CountersignGuard(options);
  return {
    guard,
    /** Every refusal given in this request, typed. */
    refusals: guard.refusals,
    model: <MODEL extends Parameters<typeof guardModel>[0]>(model: MODEL): MODEL => guardModel(model, guard),
    tools: <TOOLS extends Parameters<typeof guardTools>[0]>(tools: TOOLS): TOOLS => guardTools(tools, guard),
    toolApproval: countersignToolApproval(guard),
  };
}
