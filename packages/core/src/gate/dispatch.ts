import { type Agent, DEFAULT_AGENT } from './agent.ts';
import { authorizeCall } from './authorize.ts';
import { completeDispatched, digestResult } from './complete.ts';
import type { Proposal } from '../ledger/types.ts';
import type { GateDeps } from './config.ts';
import type { Grant } from './grant.ts';
import type { DispatchOutcome } from './outcomes.ts';
import type { AuthorizeRequest } from './port.ts';
import { errorMessage } from './propose.ts';
import type { Tool as RegisteredTool } from './tools.ts';

type Tool = Pick<RegisteredTool, 'execute'>;

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
  const authorized = await authorizeCall(deps, request, agent, true);
  if (authorized.status !== 'authorized') return authorized;
  return execute(deps, authorized.grant, authorized.proposal, authorized.tool);
}

async function execute(deps: GateDeps, grant: Grant, proposal: Proposal, tool: Tool): Promise<DispatchOutcome> {
  const context = {
    runId: grant.runId,
    sessionId: grant.sessionId,
    principal: grant.principal,
    callId: grant.callId,
    proposalId: grant.proposalId,
  };
  const ids = { proposalId: grant.proposalId, callId: grant.callId, toolName: grant.toolName };
  let result: unknown;
  // Recording goes through completeDispatched: the gate's own grant, from this call's consume,
  // leaves nothing for complete's runtime checks to catch. The tool has run by then, so a
  // store failure while recording must not turn the outcome into a rejection (the caller
  // would think nothing happened); it is reported as `resultRecorded: false` instead.
  try {
    // A fresh parse of the ledger's canonical text: the tool cannot change what was recorded.
    result = await tool.execute(JSON.parse(grant.canonicalArgs), context);
  } catch (error) {
    const message = errorMessage(error);
    const done = await completeDispatched(deps, proposal, { status: 'failed', error: message });
    return { status: 'tool_failed', ...ids, error: message, ...(done.ok ? {} : { resultRecorded: false }) };
  }
  const done = await completeDispatched(deps, proposal, { status: 'succeeded', result });
  // The digest just recorded, so the result is serialized once.
  const resultDigest = done.ok ? done.resultDigest : digestResult(result);
  return { status: 'executed', ...ids, result, resultDigest, ...(done.ok ? {} : { resultRecorded: false }) };
}
