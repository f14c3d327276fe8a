import { emit } from '../../events/emit.ts';
import { mintApprovalToken } from '../../token/mint.ts';
import type { Agent } from '../common/agent.ts';
import type { GateDeps } from '../config.ts';
import { callIds, errorMessage } from '../common/call-records.ts';
import { tokenInputOf } from '../common/token-input.ts';
import { rememberMintedCall } from '../common/minted-calls.ts';
import type { TokenResult } from '../common/port.ts';
import { viewForAgent } from './view-request.ts';

/**
 * The token for an approved request, minted from the ledger's record (deterministic,
 * so it can be fetched again). Only for the agent that owns the call's run; for any
 * other agent the request is `not_found`. Never throws.
 */
export async function issueToken(deps: GateDeps, requestId: string, agent: Agent): Promise<TokenResult> {
  try {
    const found = await viewForAgent(deps, agent, requestId);
    if (!found.ok) return found;
    const { request, proposal, status } = found.view;
    const input = status === 'approved' ? tokenInputOf(proposal, request) : undefined;
    if (input === undefined) return { ok: false, reason: 'not_approved', status, message: `request is ${status}` };
    const token = mintApprovalToken(input, deps.keyring);
    // Authorize of this token by this gate checks it against these rows, read just now (see minted-calls.ts).
    rememberMintedCall(deps, proposal, request);
    emit(deps.events, { type: 'token_minted', at: deps.clock(), requestId, agent: agent.id, ...callIds(proposal) });
    return { ok: true, token, requestId, expiresAt: request.expiresAt };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: errorMessage(error) };
  }
}
