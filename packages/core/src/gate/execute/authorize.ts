import { canonicalizeArguments } from '../../canonical/canonicalize-arguments.ts';
import { sha256Hex } from '../../digest.ts';
import type { ApprovalRequest, ConsumeResult, Proposal, ProposalWithRequest } from '../../ledger/types.ts';
import { emit } from '../../events/emit.ts';
import { tightenByAnnotations } from '../../policy/annotations.ts';
import { askPolicyNow } from '../../policy/ask-policy.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy, mayActFor } from '../common/agent.ts';
import { auditedWriteIfWritten } from '../common/audited-write.ts';
import { consumeWritten } from '../../ledger/audit-if-written.ts';
import { checkApproval, consumeReason } from './check-approval.ts';
import type { CatalogEntry } from '../../catalog/types.ts';
import { checkCallDefinition } from '../definitions/call-definition.ts';
import type { GateDeps } from '../config.ts';
import { issueGrant } from './issued-grants.ts';
import { answerLostConsume } from './lost-consume.ts';
import type { NotApprovedReason } from '../common/outcomes.ts';
import type { AuthorizeOutcome, AuthorizeRequest } from '../common/port.ts';
import { errorMessage } from '../common/call-records.ts';
import { reject, UNKNOWN_CALL } from '../common/reject.ts';
import { routedByIntent } from '../intent/intent-stage.ts';
import { RecordedCallInput } from './recorded-call-input.ts';
import { dispatchEvent } from './dispatch-event.ts';
import { sameRecordedCall, takeMintedCall } from '../common/minted-calls.ts';
import { takeRecordedCall } from '../common/recorded-calls.ts';

/**
 * Authorize's outcome before the grant is built: the ledger's call as the consume left it
 * and the approval request it consumed (the grant is built from these), with the
 * registered tool for `dispatch`, which runs it itself and needs no grant object.
 */
export type AuthorizedCall =
  | Exclude<AuthorizeOutcome, { status: 'authorized' }>
  | {
      status: 'authorized';
      proposal: Proposal;
      /** The request this call consumed (as read before the consume), or undefined for an allowed call. */
      consumed: ApprovalRequest | undefined;
      tool: CatalogEntry & { execute: NonNullable<CatalogEntry['execute']> };
    };

/**
 * The checkpoint (invariant 2) for a runtime that runs the tool itself: looks the call
 * up in the ledger, checks it belongs to `agent` and matches every cross-check the
 * request carries, re-applies policy, verifies the approval token against the LEDGER's
 * call, consumes the approval (or, for allowed tools, the call) atomically and appends
 * the `dispatch` audit record. Returns a grant built from the ledger's record: run
 * exactly `grant.canonicalArgs`, then report the result with `complete`. Never throws.
 *
 * At most once: once authorize has returned a grant the approval is spent and the call
 * reads `dispatched`. A crash before `complete` leaves it there, "ran, result unknown"
 * (`callStatus`), and it is never authorized again; a second authorize of the same call
 * is refused `already_consumed`.
 */
export async function authorize(deps: GateDeps, request: AuthorizeRequest, agent: Agent = DEFAULT_AGENT): Promise<AuthorizeOutcome> {
  const outcome = await checkAndConsume(deps, request, agent);
  if (outcome.status !== 'authorized') return outcome;
  return { status: 'authorized', grant: issueGrant(deps, outcome.proposal, outcome.consumed) };
}

/**
 * What `authorize` checks and consumes, without issuing the grant: hands back the ledger's
 * call and the registered tool instead (the gate's own `dispatch` runs it).
 * `requireExecute`: the caller will run the tool here, so a tool the gate cannot run
 * (one that runs in a remote agent) is refused before its approval is spent.
 */
export async function checkAndConsume(
  deps: GateDeps,
  request: AuthorizeRequest,
  agent: Agent = DEFAULT_AGENT,
  requireExecute = false,
): Promise<AuthorizedCall> {
  let proposal: Proposal | undefined;
  try {
    if (typeof request !== 'object' || request === null || typeof request.proposalId !== 'string') {
      return await reject(deps, undefined, UNKNOWN_CALL, 'authorize needs the proposalId that propose returned', undefined, agent);
    }
    // The call with its approval request (checked below if policy asks for one): the rows
    // this gate just minted the presented token from, or, without a token, the allowed call
    // this gate just recorded; else one ledger read. With those rows held, the consume below
    // is authorize's only ledger step (one round trip on Postgres): every check here is made
    // on fields that cannot change once the request is approved (or, for an allowed call,
    // once it is recorded), and the consume decides on what can (see minted-calls.ts,
    // recorded-calls.ts).
    const held = typeof request.token === 'string' && request.token !== '' ? takeMintedCall(deps, request.proposalId) : heldRecordedCall(deps, request.proposalId);
    const found = held ?? (await deps.ledger.getProposalWithRequest(request.proposalId));
    // Another agent's call is answered exactly like a call that does not exist.
    if (found === undefined || !isOwnedBy(found.proposal.agent, agent)) {
      return await reject(deps, undefined, UNKNOWN_CALL, 'no such call was recorded from a model response', request, agent);
    }
    proposal = found.proposal;
    // The provider already ran this hosted tool: a runtime (or a gateway serving a tool of
    // the same name) must never run it a second time, whatever the approval or policy says.
    if (proposal.executedBy === 'provider') {
      return await reject(deps, proposal, { status: 'denied', reason: 'provider_executed' }, `${proposal.toolName} was run by the model's provider; Countersign never runs it again`);
    }
    const mismatch = contextMismatch(deps, proposal, request);
    if (mismatch !== undefined) return await reject(deps, proposal, { status: 'not_approved', reason: mismatch[0] }, mismatch[1]);
    // Re-checked here too: the agent's principals may have been narrowed since the call was proposed.
    if (!mayActFor(agent, proposal.principal)) {
      return await reject(deps, proposal, { status: 'denied', reason: 'principal_not_allowed' }, `agent ${agent.id} may not act for ${proposal.principal}`);
    }

    // The tool must exist and run under the trusted definition the call was proposed under (invariant 9).
    // Answered in this turn for code-registered tools (no promise to await on the hot path).
    const checking = checkCallDefinition(deps, proposal);
    const known = checking instanceof Promise ? await checking : checking;
    if (!known.ok) {
      const rejection = known.status === 'denied' ? { status: known.status, reason: known.reason } : { status: known.status, reason: known.reason };
      return await reject(deps, proposal, rejection, known.message);
    }
    const execute = known.entry.execute;
    if (requireExecute && execute === undefined) {
      return await reject(deps, proposal, { status: 'denied', reason: 'unknown_tool' }, `${proposal.toolName} runs outside the gate: authorize and complete it instead`);
    }

    // The built-in engine answers synchronously: no await (and no promise) on that path.
    // The arguments are parsed when a rule reads them (see RecordedCallInput).
    const deciding = askPolicyNow(deps.policy, new RecordedCallInput(proposal));
    const decided = deciding instanceof Promise ? await deciding : deciding;
    // As at propose: a destructive tool allowed only by a pattern needs the approval propose asked for.
    const verdict = tightenByAnnotations(decided, known.entry.definition?.annotations);
    if (verdict.kind === 'deny') {
      return await reject(deps, proposal, { status: 'denied', reason: verdict.reason }, `policy denies ${proposal.toolName}`);
    }

    const now = deps.clock();
    let approval: { requestId: string; tokenId: string } | undefined;
    let approvalRequest: ApprovalRequest | undefined;
    // A call the intent stage routed to a person at propose time needs that approval even
    // though policy allows it: the stage's verdict is kept, never re-derived here (no model at dispatch).
    // An edited call (approve-with-edits) exists only because a person changed a call that
    // needed approval: it runs only with its own approval, consumed once, whatever policy
    // now says about its arguments (an edit down to an allowed amount, or by one of two
    // required approvers, must not turn it into a free call).
    if (verdict.kind === 'approve' || routedByIntent(found.request) || proposal.parentProposalId !== undefined) {
      // A token that verifies is answered in this turn; only a refusal comes as a promise.
      const checking = checkApproval(deps, proposal, found.request, request.token, now);
      const checked = checking instanceof Promise ? await checking : checking;
      if (checked.status !== 'ok') return checked.outcome;
      approval = checked.approval;
      approvalRequest = checked.request;
    }

    // The consume and its `dispatch` record commit together when the store holds both:
    // a spent approval never exists without its record, and no grant is handed out before
    // that record is durable. (Two steps with an unrelated audit log: see auditedWrite.)
    // The record is built before the consume (a consume changes no field it names), so
    // the store sends it with the write, appended only if the consume succeeds.
    let consumed: ConsumeResult;
    try {
      const target = proposal;
      consumed = await auditedWriteIfWritten<ConsumeResult>(
        deps,
        (audit) => deps.ledger.consume({ proposalId: target.proposalId, approval, now }, audit),
        [dispatchEvent(target, now, approval)],
        consumeWritten,
      );
    } catch (error) {
      // An error is not a refusal: the consume may have committed with its reply lost.
      return await answerLostConsume(deps, found.proposal, error);
    }
    if (!consumed.ok) {
      return await reject(deps, proposal, { status: 'not_approved', reason: consumeReason(consumed.reason) }, `approval cannot be used: ${consumed.reason}`);
    }
    // The call the consume returns (what the grant runs) must be the call every check above
    // was made on, whether those rows were held since the token was minted or the call
    // recorded, or read just before: a row edited in the store in between is refused after
    // its approval was spent. Fail closed, never run.
    if (!sameRecordedCall(consumed.proposal, found.proposal)) {
      return await reject(deps, proposal, { status: 'not_approved', reason: 'ledger_integrity' }, 'the call as consumed differs from the call its checks were made on');
    }
    // Committed: the approval (or the allowed call) is spent, whatever happens next.
    // (The fields of callIds written out: no intermediate object on every dispatch.)
    const { runId, proposalId, callId, toolName } = proposal;
    emit(deps.events, { type: 'authorized', at: now, requestId: approval?.requestId, runId, proposalId, callId, toolName });
    // The request's decisions cannot change once approved, so the grant reads them from the request as read.
    const entry = known.entry;
    return {
      status: 'authorized',
      proposal: consumed.proposal,
      consumed: approvalRequest,
      // The catalogue's own entry when it can run the tool (no copy on the dispatch path).
      tool: execute === undefined ? { ...entry, execute: unavailable } : (entry as AuthorizedTool),
    };
  } catch (error) {
    return await reject(deps, proposal, { status: 'not_approved', reason: 'store_unavailable' }, `ledger or audit store failed: ${errorMessage(error)}`);
  }
}

/** The allowed call this gate's propose just recorded, as the ledger read would give it (it has no request). */
function heldRecordedCall(deps: GateDeps, proposalId: string): ProposalWithRequest | undefined {
  const proposal = takeRecordedCall(deps, proposalId);
  return proposal === undefined ? undefined : { proposal, request: undefined };
}

type AuthorizedTool = Extract<AuthorizedCall, { status: 'authorized' }>['tool'];

// Only `authorize` (not dispatch) gets here without an execute: its caller runs the tool, never this.
function unavailable(): never {
  throw new Error('this tool runs outside the gate');
}

function contextMismatch(deps: GateDeps, proposal: Proposal, request: AuthorizeRequest): [NotApprovedReason, string] | undefined {
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
