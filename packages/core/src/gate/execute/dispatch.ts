import { type Agent, DEFAULT_AGENT } from '../common/agent.ts';
import { checkAndConsume } from './authorize.ts';
import { completeDispatched, digestResult } from './complete.ts';
import type { GateDeps } from '../config.ts';
import type { DispatchOutcome } from '../common/outcomes.ts';
import type { AuthorizeRequest } from '../common/port.ts';
import { errorMessage } from '../common/call-records.ts';

/**
 * What the runtime asks to execute: the same request as `authorize`. `proposalId`, the
 * id `propose` returned, selects the call (so a runtime cannot dispatch without having
 * looked at the propose outcome); the call itself is read from the ledger. Every other
 * field is a cross-check: when given it must equal the ledger's call or nothing runs.
 */
export type DispatchRequest = AuthorizeRequest;

/**
 * For tools registered with the gate: `authorize`, run the registered tool with the
 * ledger's arguments, `complete` with what it returned. Never throws.
 */
export async function dispatch(deps: GateDeps, request: DispatchRequest, agent: Agent = DEFAULT_AGENT): Promise<DispatchOutcome> {
  const authorized = await checkAndConsume(deps, request, agent, true);
  if (authorized.status !== 'authorized') return authorized;
  // Running the call is written here rather than in an async helper: each async layer on
  // the dispatch path costs a suspended frame and its promises (~400 B per call).
  const proposal = authorized.proposal;
  const tool = authorized.tool;
  const { proposalId, callId, toolName } = proposal;
  const context = { runId: proposal.runId, sessionId: proposal.sessionId, principal: proposal.principal, callId, proposalId };
  let result: unknown;
  // Recording goes through completeDispatched: the gate's own consume, in this call, left the
  // proposal; nothing for complete's runtime checks (read back, rebuild the grant) to catch. The
  // tool has run by then, so a store failure while recording must not turn the outcome into a
  // rejection (the caller would think nothing happened); it is reported as `resultRecorded: false`.
  try {
    // A fresh parse of the ledger's canonical text: the tool cannot change what was recorded.
    const returned = tool.execute(JSON.parse(proposal.canonicalArgs), context);
    // A synchronous tool's value is taken as it is (awaiting a non-promise would only cost a turn).
    result = isThenable(returned) ? await returned : returned;
  } catch (error) {
    const message = errorMessage(error);
    const done = await completeDispatched(deps, proposal, { status: 'failed', error: message });
    const failed: Extract<DispatchOutcome, { status: 'tool_failed' }> = { status: 'tool_failed', proposalId, callId, toolName, error: message };
    if (!done.ok) failed.resultRecorded = false;
    return failed;
  }
  const done = await completeDispatched(deps, proposal, { status: 'succeeded', result });
  // The digest just recorded, so the result is serialized once.
  const executed: Extract<DispatchOutcome, { status: 'executed' }> = { status: 'executed', proposalId, callId, toolName, result, resultDigest: done.ok ? done.resultDigest : digestResult(result) };
  if (!done.ok) executed.resultRecorded = false;
  return executed;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
