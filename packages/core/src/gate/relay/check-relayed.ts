import type { AuditEvent } from '../../audit/types.ts';
import { emit } from '../../events/emit.ts';
import type { Proposal } from '../../ledger/types.ts';
import { type Agent, DEFAULT_AGENT, isOwnedBy } from '../common/agent.ts';
import { idProblem } from '../../call-ids.ts';
import type { GateDeps } from '../config.ts';
import { callIds, errorMessage, eventAbout } from '../common/call-records.ts';
import { JSON_PROJECTIONS, type ProjectionDigests, type RelayProjection } from './projections.ts';
import { type RelayedForms, relayedForms } from './relayed-forms.ts';
import type { CheckRelayedRequest, RelayCheckOutcome, RelayedToolMessage, RelayFailure } from './types.ts';

/** Most tool messages one check takes (a model request relays the results of one or a few responses). */
export const MAX_RELAYED_MESSAGES = 1024;

/**
 * CASA check 5, data fidelity: each tool result the runtime relays back to the model
 * (call id + content) must be one of the accepted projections of the raw result
 * recorded for that call of `runId` (see RELAY_PROJECTIONS; `relayProjections` in the
 * gate config says which are accepted). Only runs `agent` owns are visible: a call of
 * another agent's run, or of another run, is `unknown_call`.
 *
 * Every message is checked, and every failure is audited (one `rejection` record each,
 * with the call id, the reason and the relayed content's digest) before the answer;
 * a check that passes writes nothing. A failed call passes only when `error` is
 * accepted and the relayed text is exactly its recorded error message. Never throws.
 */
export async function checkRelayed(deps: GateDeps, request: CheckRelayedRequest, agent: Agent = DEFAULT_AGENT): Promise<RelayCheckOutcome> {
  const invalid = requestProblem(request);
  if (invalid !== undefined) return { ok: false, reason: 'invalid_request', message: invalid };
  const { runId, toolMessages } = request;
  let failed: Array<{ failure: RelayFailure; event: AuditEvent; proposal: Proposal | undefined }>;
  try {
    const owner = await deps.ledger.getRunOwner(runId);
    const visible = owner !== undefined && isOwnedBy(owner, agent);
    failed = [];
    for (const message of toolMessages) {
      const proposal = visible ? await deps.ledger.findProposalByCall(runId, message.callId) : undefined;
      const owned = proposal !== undefined && isOwnedBy(proposal.agent, agent) ? proposal : undefined;
      const found = owned === undefined ? undefined : await followEdits(deps, owned);
      const forms = relayedForms(message.content);
      const failure = checkOne(deps.relayProjections, message, found, forms);
      if (failure === undefined || (await isRecordedRefusal(deps, owned, failure, forms))) continue;
      failed.push({ failure, event: refusalEvent(deps, runId, message, found, forms, failure, agent), proposal: found });
    }
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
  if (failed.length === 0) return { ok: true, checked: toolMessages.length };

  // Every refusal is recorded before the answer; an audit outage still refuses the relay.
  try {
    for (const { event } of failed) await deps.audit.append(event);
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `relay refused, but the audit log failed: ${errorMessage(error)}` };
  }
  for (const { event, failure, proposal } of failed) {
    const ids = proposal === undefined ? { runId, callId: failure.callId } : callIds(proposal);
    emit(deps.events, { type: 'rejected', at: event.at, stage: 'relay', reason: failure.reason, ...ids });
  }
  const failures = failed.map((f) => f.failure);
  const summary = failures.map((f) => `${f.callId}: ${f.reason}`).join(', ');
  return { ok: false, reason: 'relay_refused', message: `relayed tool results refused (${summary})`, failures };
}

/**
 * A call that never ran, relayed with exactly the refusal an integration recorded for it
 * (`reportRefusal` with `call_refused`: the MCP gateway's answer to a recorded call it did
 * not run): Countersign's own refusal, recognised by the ledger, never by the text's format.
 * Only while the call is still `proposed` (one that ran since is not "refused" any more).
 */
async function isRecordedRefusal(deps: GateDeps, call: Proposal | undefined, failure: RelayFailure, forms: RelayedForms): Promise<boolean> {
  if (failure.reason !== 'not_executed' || call === undefined || call.state !== 'proposed' || forms.text === undefined) return false;
  return (await deps.ledger.hasCallRefusal?.(call.proposalId, forms.text)) === true;
}

/** An edit of an edit is possible; a longer chain is not followed. */
const MAX_EDIT_HOPS = 8;

/**
 * The call whose result stands for `proposal`: itself, or, when an approver edited it
 * (its request is `edited`), the edited call the decision names, in the same run (an
 * integration runs the approver's edit and relays its result under the model's call
 * id). The link is the ledger's (`parentProposalId`), never the relayed message's.
 */
async function followEdits(deps: GateDeps, proposal: Proposal): Promise<Proposal> {
  let current = proposal;
  for (let hop = 0; hop < MAX_EDIT_HOPS && current.result === undefined; hop++) {
    const request = await deps.ledger.findApprovalRequestByProposal(current.proposalId);
    const editedId = request?.status === 'edited' ? request.decisions.find((d) => d.editedProposalId !== undefined)?.editedProposalId : undefined;
    if (editedId === undefined) return current;
    const edited = await deps.ledger.getProposal(editedId);
    if (edited === undefined || edited.parentProposalId !== current.proposalId || edited.runId !== current.runId) return current;
    current = edited;
  }
  return current;
}

function checkOne(
  accepted: ReadonlySet<RelayProjection>,
  message: RelayedToolMessage,
  proposal: Proposal | undefined,
  forms: RelayedForms,
): RelayFailure | undefined {
  const { callId } = message;
  if (proposal === undefined) return { callId, reason: 'unknown_call', message: `no call ${callId} was recorded in this run` };
  const proposalId = proposal.proposalId;
  const result = proposal.result;
  // A provider's output and a runtime's result are never taken for one another.
  if (proposal.executedBy === 'provider' || message.providerOutput === true) return checkProviderOutput(message, proposal, forms);
  if (result === undefined) {
    const state = proposal.state === 'dispatched' ? 'was authorized but no result was recorded' : 'was never authorized';
    return { callId, proposalId, reason: 'not_executed', message: `call ${callId} ${state}` };
  }
  if (result.status === 'failed') {
    if (!accepted.has('error')) return { callId, proposalId, reason: 'not_executed', message: `call ${callId} failed; relaying a failed call's error is not accepted here` };
    if (forms.text === result.resultDigest) return undefined;
    return { callId, proposalId, reason: 'result_mismatch', message: `call ${callId} failed; the relayed content is not its recorded error message` };
  }
  // Results recorded without projections (before they existed) have only the canonical JSON digest.
  const digests: ProjectionDigests = result.projections ?? { json: result.resultDigest };
  for (const [name, digest] of Object.entries(digests) as Array<[RelayProjection, string]>) {
    if (!accepted.has(name)) continue;
    if (forms.text === digest) return undefined;
    if (forms.canonical === digest && JSON_PROJECTIONS.has(name)) return undefined;
  }
  return { callId, proposalId, reason: 'result_mismatch', message: `the content relayed for call ${callId} is not an accepted form of its recorded result` };
}

/**
 * A hosted tool's output sent back to the model: it must be relayed as the provider's output
 * of a call the provider ran, and be canonically equal to the output recorded for it.
 */
function checkProviderOutput(message: RelayedToolMessage, proposal: Proposal, forms: RelayedForms): RelayFailure | undefined {
  const { callId } = message;
  const proposalId = proposal.proposalId;
  if (proposal.executedBy !== 'provider') {
    return { callId, proposalId, reason: 'result_mismatch', message: `call ${callId} was not run by the provider; a hosted tool's output cannot stand for its result` };
  }
  if (message.providerOutput !== true) {
    return { callId, proposalId, reason: 'result_mismatch', message: `call ${callId} was run by the provider; only its own output block can carry its result` };
  }
  if (proposal.result === undefined) return { callId, proposalId, reason: 'not_executed', message: `no output of the provider was recorded for call ${callId}` };
  if (forms.canonical === proposal.result.resultDigest) return undefined;
  return { callId, proposalId, reason: 'result_mismatch', message: `the output relayed for call ${callId} is not the output the provider produced` };
}

function refusalEvent(
  deps: GateDeps,
  runId: string,
  message: RelayedToolMessage,
  proposal: Proposal | undefined,
  forms: RelayedForms,
  failure: RelayFailure,
  agent: Agent,
): AuditEvent {
  const at = deps.clock();
  const base: AuditEvent = proposal === undefined ? { type: 'rejection', at, runId, callId: message.callId } : eventAbout(proposal, 'rejection', at);
  return { ...base, reason: failure.reason, detail: { status: 'relay_refused', relayedDigest: forms.digest, agent: agent.id } };
}

function requestProblem(request: CheckRelayedRequest): string | undefined {
  if (typeof request !== 'object' || request === null) return 'the request must be an object';
  const runProblem = idProblem('runId', request.runId);
  if (runProblem !== undefined) return runProblem;
  const messages: unknown = request.toolMessages;
  if (!Array.isArray(messages)) return 'toolMessages must be a list';
  if (messages.length > MAX_RELAYED_MESSAGES) return `at most ${MAX_RELAYED_MESSAGES} tool messages per check`;
  for (const [index, message] of messages.entries()) {
    if (typeof message !== 'object' || message === null) return `toolMessages[${index}] must be an object`;
    const callProblem = idProblem(`toolMessages[${index}].callId`, (message as { callId?: unknown }).callId);
    if (callProblem !== undefined) return callProblem;
    if ((message as { content?: unknown }).content === undefined) return `toolMessages[${index}].content is required`;
  }
  return undefined;
}
