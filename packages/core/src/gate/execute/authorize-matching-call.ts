import { canonicalizeArguments } from '../../canonical/canonicalize-arguments.ts';
import type { Proposal } from '../../ledger/types.ts';
import { type Agent, DEFAULT_AGENT } from '../common/agent.ts';
import { authorize } from './authorize.ts';
import type { GateDeps } from '../config.ts';
import type { AuthorizeOutcome } from '../common/port.ts';
import { errorMessage } from '../common/call-records.ts';
import { reject, UNKNOWN_CALL } from '../common/reject.ts';

/** A call a runtime is about to make (an MCP `tools/call`), claimed to be one the model made in `runId`. */
export interface MatchingCallRequest {
  runId: string;
  /** The model's tool-call id, when the runtime knows it: selects the record, so a mismatch gets its precise code. */
  callId?: string | undefined;
  toolName: string;
  arguments: unknown;
  /** On whose behalf the runtime acts, when it knows: must be the recorded call's principal. */
  principal?: string | undefined;
  /** The agent's session, when the caller knows it: must be the recorded call's session (`session_mismatch`). */
  sessionId?: string | undefined;
  /** The approval token, for a call that needed approval. */
  token?: string | undefined;
}

/**
 * CASA checks 3 and 4 for a runtime that did not get the proposal id (it only has the
 * call it is about to make): the call must be a recorded, undispatched call of the
 * same run, with the same tool and canonical arguments. With a call id, that record is
 * selected and `authorize`'s cross-checks answer `tool_mismatch` or `args_mismatch`;
 * without one, the oldest open call with this tool and argument digest is taken, one
 * the provider ran only when no other matches (it is refused `provider_executed`, and
 * must not shadow the runtime's own call of that tool and those arguments). No
 * record is `unknown_call`. Every refusal is audited (by `reject`/`authorize`); a match
 * is authorized exactly like `authorize` (policy, token, single use) and its grant
 * carries the LEDGER's arguments. Never throws.
 */
export async function authorizeMatchingCall(deps: GateDeps, request: MatchingCallRequest, agent: Agent = DEFAULT_AGENT): Promise<AuthorizeOutcome> {
  const asked = { runId: request?.runId, callId: request?.callId };
  if (typeof request !== 'object' || request === null || typeof request.runId !== 'string' || typeof request.toolName !== 'string') {
    return reject(deps, undefined, UNKNOWN_CALL, 'a recorded call needs its run id and tool name', asked, agent);
  }
  let proposal: Proposal | undefined;
  try {
    if (request.callId !== undefined) {
      proposal = await deps.ledger.findProposalByCall(request.runId, request.callId);
    } else {
      let digest: string;
      try {
        digest = canonicalizeArguments(request.arguments, deps.argumentLimits).digest;
      } catch {
        return reject(deps, undefined, { status: 'not_approved', reason: 'invalid_arguments' }, 'runtime arguments are not valid canonical JSON', asked, agent);
      }
      proposal = await deps.ledger.findOpenCall(request.runId, request.toolName, digest);
    }
  } catch (error) {
    return reject(deps, undefined, { status: 'not_approved', reason: 'store_unavailable' }, `ledger failed: ${errorMessage(error)}`, asked, agent);
  }
  if (proposal === undefined) {
    return reject(deps, undefined, UNKNOWN_CALL, `no recorded call of run ${request.runId} matches this ${request.toolName} call`, asked, agent);
  }
  // authorize re-reads the record, checks its owner (another agent's call is unknown_call)
  // and the runtime's tool and arguments against it: checks 3 and 4 are its cross-checks.
  return authorize(
    deps,
    {
      proposalId: proposal.proposalId,
      token: request.token,
      runId: request.runId,
      callId: request.callId,
      principal: request.principal,
      sessionId: request.sessionId,
      toolName: request.toolName,
      arguments: request.arguments,
    },
    agent,
  );
}
