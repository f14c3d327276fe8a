import { canonicalizeArguments } from '../canonical/canonicalize-arguments.ts';
import { serializeCanonical } from '../canonical/serialize.ts';
import { sha256Hex } from '../digest.ts';
import { effectiveStatus } from '../ledger/effective-status.ts';
import type { ApprovalStatus, ConsumeFailure, Proposal } from '../ledger/types.ts';
import { decideSafely } from '../policy/safe-decide.ts';
import { decodeApprovalToken } from '../token/decode.ts';
import { verifyApprovalToken } from '../token/verify.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy, mayActFor } from './agent.ts';
import { auditBestEffort } from './audit-safely.ts';
import { checkCallDefinition } from './call-definition.ts';
import type { GateDeps } from './config.ts';
import { expectedCallOf } from './expected-call.ts';
import type { DeniedReason, DispatchOutcome, NotApprovedReason } from './outcomes.ts';
import { errorMessage, eventAbout } from './propose.ts';
import type { Tool } from './tools.ts';

/**
 * What the runtime asks to execute. `proposalId`, the id `propose` returned, selects
 * the call (so a runtime cannot dispatch without having looked at the propose
 * outcome); the call itself is read from the ledger. Every other field is a
 * cross-check: when given it must equal the ledger's call or nothing runs. `toolName`
 * and `arguments` are what the runtime was about to send (CASA checks 3 and 4).
 */
export interface DispatchRequest {
  proposalId: string;
  runId?: string | undefined;
  callId?: string | undefined;
  sessionId?: string | undefined;
  principal?: string | undefined;
  /** The approval token, for tools that need one. */
  token?: string | undefined;
  toolName?: string | undefined;
  arguments?: unknown;
}

type Rejection = { status: 'not_approved'; reason: NotApprovedReason } | { status: 'denied'; reason: DeniedReason };

/**
 * The one checkpoint (invariant 2): looks the call up in the ledger, checks it belongs
 * to `agent`, re-applies policy, verifies and consumes the approval atomically, then
 * runs the tool with the ledger's arguments and records the result. Never throws.
 */
export async function dispatch(deps: GateDeps, request: DispatchRequest, agent: Agent = DEFAULT_AGENT): Promise<DispatchOutcome> {
  let proposal: Proposal | undefined;
  try {
    if (typeof request !== 'object' || request === null || typeof request.proposalId !== 'string') {
      return await reject(deps, undefined, UNKNOWN_CALL, 'dispatch needs the proposalId that propose returned', undefined, agent);
    }
    const found = await deps.ledger.getProposal(request.proposalId);
    // Another agent's call is answered exactly like a call that does not exist.
    if (found === undefined || !isOwnedBy(found.agent, agent)) {
      return await reject(deps, undefined, UNKNOWN_CALL, 'no such call was recorded from a model response', request, agent);
    }
    proposal = found;
    const mismatch = contextMismatch(deps, proposal, request);
    if (mismatch !== undefined) return await reject(deps, proposal, { status: 'not_approved', reason: mismatch[0] }, mismatch[1]);
    // Re-checked here too: the agent's principals may have been narrowed since the call was proposed.
    if (!mayActFor(agent, proposal.principal)) {
      return await reject(deps, proposal, { status: 'denied', reason: 'principal_not_allowed' }, `agent ${agent.id} may not act for ${proposal.principal}`);
    }

    const known = await checkCallDefinition(deps, proposal);
    if (!known.ok) return await reject(deps, proposal, { status: known.status, reason: known.reason } as Rejection, known.message);
    const run = known.entry.execute;
    if (run === undefined) {
      return await reject(deps, proposal, { status: 'denied', reason: 'unknown_tool' }, `${proposal.toolName} runs outside the gate: authorize it and complete it instead`);
    }

    const args: unknown = JSON.parse(proposal.canonicalArgs);
    const verdict = await decideSafely(deps.policy, {
      toolName: proposal.toolName,
      args,
      principal: proposal.principal,
      runId: proposal.runId,
      sessionId: proposal.sessionId,
      definitionDigest: proposal.definitionDigest,
    });
    if (verdict.kind === 'deny') {
      return await reject(deps, proposal, { status: 'denied', reason: verdict.reason }, `policy denies ${proposal.toolName}`);
    }

    const now = deps.clock();
    let approval: { requestId: string; tokenId: string } | undefined;
    if (verdict.kind === 'approve') {
      const checked = await checkApproval(deps, proposal, request.token, now);
      if (checked.status !== 'ok') return checked.outcome;
      approval = checked.approval;
    }

    const consumed = await deps.ledger.consume({ proposalId: proposal.proposalId, approval, now });
    if (!consumed.ok) {
      return await reject(deps, proposal, { status: 'not_approved', reason: consumeReason(consumed.reason) }, `approval cannot be used: ${consumed.reason}`);
    }
    // The approval is spent before the tool runs, and no tool runs without this record.
    await deps.audit.append({ ...eventAbout(proposal, 'dispatch', now), requestId: approval?.requestId, detail: approval ? { tokenId: approval.tokenId } : undefined });
    return await execute(deps, proposal, { execute: run }, args);
  } catch (error) {
    return await reject(deps, proposal, { status: 'not_approved', reason: 'store_unavailable' }, `ledger or audit store failed: ${errorMessage(error)}`);
  }
}

const UNKNOWN_CALL: Rejection = { status: 'not_approved', reason: 'unknown_call' };

function contextMismatch(deps: GateDeps, proposal: Proposal, request: DispatchRequest): [NotApprovedReason, string] | undefined {
  if (request.runId !== undefined && request.runId !== proposal.runId) return ['run_mismatch', 'the proposal belongs to another run'];
  if (request.callId !== undefined && request.callId !== proposal.callId) return ['call_mismatch', 'the proposal is another tool call'];
  if (request.sessionId !== undefined && request.sessionId !== proposal.sessionId) return ['session_mismatch', 'dispatch comes from another session'];
  if (request.principal !== undefined && request.principal !== proposal.principal) return ['principal_mismatch', 'dispatch acts for another principal'];
  if (request.toolName !== undefined && request.toolName !== proposal.toolName) {
    return ['tool_mismatch', `runtime asked for ${request.toolName}; the model called ${proposal.toolName}`];
  }
  if (request.arguments !== undefined) {
    let digest: string;
    try {
      digest = canonicalizeArguments(request.arguments, deps.argumentLimits).digest;
    } catch {
      return ['invalid_arguments', 'runtime arguments are not valid canonical JSON'];
    }
    if (digest !== proposal.argsDigest) return ['args_mismatch', 'runtime arguments differ from the model call'];
  }
  if (sha256Hex(proposal.canonicalArgs) !== proposal.argsDigest) {
    return ['ledger_integrity', 'stored arguments do not match their recorded digest'];
  }
  return undefined;
}

/** Reason for a dispatch without a token, by the state of the call's approval request. */
const NO_TOKEN_REASON: Record<Exclude<ApprovalStatus, 'denied'> | 'none', NotApprovedReason> = {
  pending: 'approval_pending', // answered with approval_required above; here for completeness
  none: 'missing',
  approved: 'missing',
  expired: 'expired',
  revoked: 'approval_revoked',
  consumed: 'already_consumed',
};

type ApprovalCheck =
  | { status: 'ok'; approval: { requestId: string; tokenId: string } }
  | { status: 'stop'; outcome: DispatchOutcome };

async function checkApproval(deps: GateDeps, proposal: Proposal, token: string | undefined, now: number): Promise<ApprovalCheck> {
  const request = await deps.ledger.findApprovalRequestByProposal(proposal.proposalId);
  if (token === undefined || token === '') {
    // No evidence: say where the request stands, so a waiting agent knows whether to keep waiting.
    const status = request === undefined ? 'none' : effectiveStatus(request, now);
    if (status === 'pending' && request !== undefined) {
      return { status: 'stop', outcome: { status: 'approval_required', proposalId: proposal.proposalId, requestId: request.requestId, expiresAt: request.expiresAt } };
    }
    const rejection: Rejection =
      status === 'denied'
        ? { status: 'denied', reason: 'approval_denied' }
        : { status: 'not_approved', reason: NO_TOKEN_REASON[status] };
    return { status: 'stop', outcome: await reject(deps, proposal, rejection, `this tool needs an approval token (request ${status})`) };
  }
  const verified = verifyApprovalToken(token, expectedCallOf(proposal), {
    keyring: deps.keyring,
    now,
    clockToleranceSeconds: deps.clockToleranceSeconds,
  });
  if (!verified.ok) {
    const decoded = decodeApprovalToken(token);
    const tokenId = decoded.ok ? decoded.token.claims.jti : undefined;
    return { status: 'stop', outcome: await reject(deps, proposal, { status: 'not_approved', reason: verified.reason }, verified.message, undefined, undefined, tokenId) };
  }
  if (request === undefined || request.requestId !== verified.claims.req) {
    return { status: 'stop', outcome: await reject(deps, proposal, { status: 'not_approved', reason: 'token_mismatch' }, "token does not belong to this call's approval request") };
  }
  return { status: 'ok', approval: { requestId: request.requestId, tokenId: verified.claims.jti } };
}

async function execute(deps: GateDeps, proposal: Proposal, tool: Tool, args: unknown): Promise<DispatchOutcome> {
  const context = {
    runId: proposal.runId,
    sessionId: proposal.sessionId,
    principal: proposal.principal,
    callId: proposal.callId,
    proposalId: proposal.proposalId,
  };
  const ids = { proposalId: proposal.proposalId, callId: proposal.callId, toolName: proposal.toolName };
  let result: unknown;
  try {
    result = await tool.execute(args, context);
  } catch (error) {
    const message = errorMessage(error);
    const resultRecorded = await recordResult(deps, proposal, 'failed', sha256Hex(message));
    return { status: 'tool_failed', ...ids, error: message, ...(resultRecorded ? {} : { resultRecorded }) };
  }
  const resultDigest = digestResult(result);
  const resultRecorded = await recordResult(deps, proposal, 'succeeded', resultDigest);
  return { status: 'executed', ...ids, result, resultDigest, ...(resultRecorded ? {} : { resultRecorded }) };
}

/**
 * Records what the tool returned, in the ledger and the audit log. The tool has run by
 * now, so a store failure here must not turn the outcome into a rejection (the caller
 * would think nothing happened); it is reported as `resultRecorded: false` instead.
 */
async function recordResult(deps: GateDeps, proposal: Proposal, status: 'succeeded' | 'failed', resultDigest: string): Promise<boolean> {
  const at = deps.clock();
  try {
    await deps.ledger.recordResult(proposal.proposalId, { status, resultDigest, at });
    await deps.audit.append({
      ...eventAbout(proposal, 'result', at),
      reason: status === 'failed' ? 'tool_failed' : undefined,
      detail: { resultDigest },
    });
    return true;
  } catch {
    return false;
  }
}

/** Digest of a tool result; results that are not JSON (functions, cycles) hash their string form. */
export function digestResult(result: unknown): string {
  try {
    return sha256Hex(serializeCanonical(result ?? null));
  } catch {
    return sha256Hex(String(result));
  }
}

function consumeReason(reason: ConsumeFailure): NotApprovedReason {
  switch (reason) {
    case 'already_consumed':
      return 'already_consumed';
    case 'expired':
      return 'expired';
    case 'revoked':
      return 'approval_revoked';
    case 'not_approved':
      return 'approval_pending';
    case 'not_found':
    case 'token_mismatch':
      return 'token_mismatch';
  }
}

async function reject(
  deps: GateDeps,
  proposal: Proposal | undefined,
  rejection: Rejection,
  message: string,
  request?: DispatchRequest,
  agent?: Agent,
  tokenId?: string,
): Promise<DispatchOutcome> {
  const at = deps.clock();
  const base = proposal
    ? eventAbout(proposal, 'rejection', at)
    : {
        type: 'rejection' as const,
        at,
        runId: stringOrUndefined(request?.runId),
        sessionId: stringOrUndefined(request?.sessionId),
        callId: stringOrUndefined(request?.callId),
        actor: stringOrUndefined(request?.principal),
      };
  // For a call that is unknown (or another agent's) the audit keeps what was asked and by whom.
  const asked = proposal === undefined && typeof request?.proposalId === 'string' ? { proposalId: request.proposalId } : {};
  const who = proposal === undefined && agent !== undefined ? { agent: agent.id } : {};
  await auditBestEffort(deps.audit, {
    ...base,
    reason: rejection.reason,
    detail: { status: rejection.status, ...asked, ...who, ...(tokenId ? { tokenId } : {}) },
  });
  return { ...rejection, message, proposalId: proposal?.proposalId } as DispatchOutcome;
}

/** Request fields come from the runtime unchecked; only strings go into the audit record. */
function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
