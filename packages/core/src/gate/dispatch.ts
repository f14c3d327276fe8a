import { type Agent, DEFAULT_AGENT } from './agent.ts';
import { authorizeCall } from './authorize.ts';
import { complete, digestResult } from './complete.ts';
import type { GateDeps } from './config.ts';
import type { Completion, Grant } from './grant.ts';
import type { DispatchOutcome } from './outcomes.ts';
import type { AuthorizeRequest } from './port.ts';
import { errorMessage } from './propose.ts';
import type { Tool } from './tools.ts';

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
  const authorized = await authorizeCall(deps, request, agent);
  if (authorized.status !== 'authorized') return authorized;
  return execute(deps, authorized.grant, authorized.tool.tool, agent);
}

async function execute(deps: GateDeps, grant: Grant, tool: Tool, agent: Agent): Promise<DispatchOutcome> {
  const context = {
    runId: grant.runId,
    sessionId: grant.sessionId,
    principal: grant.principal,
    callId: grant.callId,
    proposalId: grant.proposalId,
  };
  const ids = { proposalId: grant.proposalId, callId: grant.callId, toolName: grant.toolName };
  let result: unknown;
  try {
    // A fresh parse of the ledger's canonical text: the tool cannot change what was recorded.
    result = await tool.execute(JSON.parse(grant.canonicalArgs), context);
  } catch (error) {
    const message = errorMessage(error);
    const resultRecorded = await recorded(deps, grant, { status: 'failed', error: message }, agent);
    return { status: 'tool_failed', ...ids, error: message, ...(resultRecorded ? {} : { resultRecorded }) };
  }
  const resultRecorded = await recorded(deps, grant, { status: 'succeeded', result }, agent);
  return { status: 'executed', ...ids, result, resultDigest: digestResult(result), ...(resultRecorded ? {} : { resultRecorded }) };
}

/**
 * The tool has run by now, so a store failure while recording must not turn the
 * outcome into a rejection (the caller would think nothing happened); it is reported
 * as `resultRecorded: false` instead.
 */
async function recorded(deps: GateDeps, grant: Grant, completion: Completion, agent: Agent): Promise<boolean> {
  return (await complete(deps, grant, completion, agent)).ok;
}
