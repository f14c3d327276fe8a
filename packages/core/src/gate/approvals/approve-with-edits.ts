import { AUDIT_RECORD_FORMAT } from '../../audit/record-format.ts';
import type { AuditEvent, AuditValue } from '../../audit/types.ts';
import { canonicalizeArguments } from '../../canonical/canonicalize-arguments.ts';
import { CanonicalizationError } from '../../canonical/errors.ts';
import type { ApproverRule, EditInput, EditRefusal, Proposal, RecordEditResult } from '../../ledger/types.ts';
import { emit } from '../../events/emit.ts';
import { askPolicy } from '../../policy/ask-policy.ts';
import { auditBestEffort } from '../common/audit-safely.ts';
import { appendAfterEffect, decisionEvent } from './audit-decision.ts';
import { auditsAtomically } from '../common/audited-write.ts';
import { settleLostWrite } from '../common/settle-lost-write.ts';
import { checkCallDefinition } from '../definitions/call-definition.ts';
import type { GateDeps } from '../config.ts';
import { checkPasskeyRule } from './passkey-rule.ts';
import type { DecideOptions, DecisionFailure, DecisionInput, DecisionOutcome, DecisionView } from './types.ts';
import { type Approver, mayDecide } from './eligibility.ts';
import { checkInputSchema, type InputSchemaProblem } from '../definitions/input-schema.ts';
import { addRequestDetail, callIds, errorMessage, eventAbout } from '../common/call-records.ts';

/** What the edited call's own approval request carries. */
interface EditedRule {
  eligible: ApproverRule;
  requiredApprovals: number;
  expiresAt: number;
  ruleId: string | undefined;
  passkey?: 'required' | undefined;
  ruleDescription?: string | undefined;
}

/**
 * Approve-with-edits: the approver's arguments become a new proposal, approved as its
 * own call (the original is closed, linked to it). The edit is a new call, so it gets
 * its own checks before anything is written:
 * - the arguments must canonicalize and fit the tool's pinned input schema;
 * - policy decides the edited call: `deny` refuses the edit (the original stays
 *   pending); `approve` gives the new request that rule's approvers, count and TTL;
 *   `allow` keeps the original request's rule (see `editedRule`).
 * The editor's approval is recorded on the new request only if they are eligible under
 * its rule; otherwise it waits, pending, for approvers who are.
 */
export async function approveWithEdits(
  deps: GateDeps,
  approver: Approver,
  view: DecisionView,
  input: DecisionInput,
  options: DecideOptions = {},
): Promise<DecisionOutcome> {
  const original = view.proposal;
  let edited: ReturnType<typeof canonicalizeArguments>;
  try {
    edited = canonicalizeArguments(input.editedArguments, deps.argumentLimits);
  } catch (error) {
    const message = error instanceof CanonicalizationError ? `${error.code}: ${error.message}` : errorMessage(error);
    return fail('invalid_arguments', message);
  }
  const schemaProblem = await editSchemaProblem(deps, original, edited.value);
  if (schemaProblem !== undefined) return { ok: false, reason: 'invalid_arguments', ...schemaProblem };
  if (view.status !== 'pending') return fail(view.status === 'expired' ? 'expired' : 'already_decided', `request is ${view.status}`);

  const now = deps.clock();
  const verdict = await askPolicy(deps.policy, {
    toolName: original.toolName,
    args: edited.value,
    principal: original.principal,
    runId: original.runId,
    sessionId: original.sessionId,
    definitionDigest: original.definitionDigest,
  });
  if (verdict.kind === 'deny') {
    // Nothing was written: the original call stays pending as it was.
    await auditBestEffort(deps.audit, {
      ...eventAbout(original, 'rejection', now),
      requestId: view.request.requestId,
      actor: approver.id,
      reason: 'edit_denied_by_policy',
      detail: { editedArgsDigest: edited.digest, verdict: verdict.reason, ruleId: verdict.ruleId ?? null },
    });
    emit(deps.events, { type: 'rejected', at: now, stage: 'edit', reason: 'edit_denied_by_policy', requestId: view.request.requestId, ...callIds(original) });
    return fail('edit_denied_by_policy', `policy denies the edited call (${verdict.reason}${verdict.ruleId ? `, rule ${verdict.ruleId}` : ''})`);
  }
  const rule = editedRule(view, verdict, now);
  // Under a passkey rule the edit itself is signed: the claims name the edited arguments' digest.
  const signed = await checkPasskeyRule(view, approver, input.passkeyAssertion, { decision: 'approve', editedArgsDigest: edited.digest }, options.passkeys, now);
  if (!signed.ok) return fail(signed.reason, signed.message);

  const editedProposalId = deps.newId();
  const reason = input.reason ?? 'edited';
  const closing = { approver: approver.id, decision: 'deny' as const, reason, at: now, editedProposalId, ...(signed.evidence ? { passkey: signed.evidence } : {}) };
  // Under a passkey rule the edited call is approved by its own signed decision, over its
  // own claims: the edit's signature closes the original, it never approves a second call.
  const editorApproves = rule.passkey !== 'required' && mayDecide(rule.eligible, approver, original.principal);
  const approval = { approver: approver.id, decision: 'approve' as const, reason: input.reason, at: now };
  const edit: EditInput = {
    original: { requestId: view.request.requestId, decision: closing },
    proposal: {
      proposalId: editedProposalId,
      runId: original.runId,
      sessionId: original.sessionId,
      principal: original.principal,
      agent: original.agent,
      callId: `${original.callId}~edit-${editedProposalId}`,
      toolName: original.toolName,
      definitionDigest: original.definitionDigest,
      canonicalArgs: edited.canonical,
      argsDigest: edited.digest,
      responseRef: original.responseRef,
      parentProposalId: original.proposalId,
      createdAt: now,
    },
    request: { requestId: deps.newId(), proposalId: editedProposalId, createdAt: now, ...rule },
    editorApproval: editorApproves ? { decision: approval, tokenIdIfApproved: deps.newId() } : undefined,
    now,
  };
  // The edit's audit records (format 2), in the order a reader of the ledger would tell it:
  // the edited call with its verdict and request, the original's closing decision, and the
  // editor's own approval of the edited call (with its token) when they may give it.
  const events = (r: RecordEditResult): AuditEvent[] => {
    if (!r.ok) return [];
    const detail: { [key: string]: AuditValue } = {
      format: AUDIT_RECORD_FORMAT,
      editedFrom: original.proposalId,
      originalArgsDigest: original.argsDigest,
      verdict: verdict.kind,
      ruleId: verdict.ruleId ?? null,
    };
    addRequestDetail(detail, rule);
    const proposed: AuditEvent = { ...eventAbout(r.proposal, 'proposal', now), requestId: r.request.requestId, actor: approver.id, detail };
    const records = [proposed, decisionEvent(deps.keyring, original, r.original, closing, edited.digest)];
    if (editorApproves) records.push(decisionEvent(deps.keyring, r.proposal, r.request, approval));
    return records;
  };
  // One ledger operation: the original closed, the edited call, its request and the
  // editor's approval are written together or not at all (never a closed original
  // without the call that replaces it); with a store that holds both, the edit's audit
  // records commit with them (an edit never takes effect without its records).
  const atomic = auditsAtomically(deps);
  let recorded: RecordEditResult;
  try {
    recorded = await deps.ledger.recordEdit(edit, atomic ? events : undefined);
  } catch (error) {
    // Maybe only the reply was lost: the store says whether the edit stands.
    const settled = await settleLostWrite(() => recordedEdit(deps, view.request.requestId, editedProposalId), error);
    if (settled.settled === 'not_written') throw error;
    if (settled.settled === 'unknown') return fail('outcome_unknown', settled.message);
    recorded = settled.value;
  }
  if (!recorded.ok) return fail(editFailure(recorded.reason), `edit refused: ${recorded.reason}`);
  const { proposal: editedProposal, request: editedRequest, original: closed } = recorded;
  // The edit has taken effect: from here on, nothing may report it as failed.
  emit(deps.events, { type: 'proposed', at: now, verdict: verdict.kind, editedFrom: original.proposalId, ...callIds(editedProposal) });
  emit(deps.events, { type: 'approval_requested', at: now, requestId: editedRequest.requestId, expiresAt: editedRequest.expiresAt, ...callIds(editedProposal) });
  if (editorApproves) {
    emit(deps.events, {
      type: 'decided',
      at: now,
      requestId: editedRequest.requestId,
      approver: approver.id,
      decision: 'approve',
      status: editedRequest.status,
      ...callIds(editedProposal),
    });
  }
  // Last, so a waiter on the original request wakes to find the edited request in place.
  emit(deps.events, {
    type: 'edited',
    at: now,
    requestId: view.request.requestId,
    approver: approver.id,
    editedProposalId,
    editedRequestId: editedRequest.requestId,
    ...callIds(original),
  });
  // Two steps only with an unrelated audit log: there an audit outage is reported
  // (auditRecorded: false) rather than stranding the edit.
  const audited = atomic || (await appendAfterEffect(deps.audit, events(recorded)));
  return { ok: true, request: closed, editedRequest, editedProposal, ...(audited ? {} : { auditRecorded: false as const }) };
}

/**
 * The edit as stored now, if the original request holds the closing deny naming
 * `editedProposalId` (an id this step made: no other write can have put it there).
 */
async function recordedEdit(deps: GateDeps, requestId: string, editedProposalId: string): Promise<RecordEditResult | undefined> {
  const original = await deps.ledger.getApprovalRequest(requestId);
  if (!original?.decisions.some((d) => d.editedProposalId === editedProposalId)) return undefined;
  const found = await deps.ledger.getProposalWithRequest(editedProposalId);
  // recordEdit writes all of it or nothing: a closed original without its edited call is not an answer to give.
  if (found?.request === undefined) throw new Error(`request ${requestId} names edit ${editedProposalId}, which the store does not hold`);
  return { ok: true, original, proposal: found.proposal, request: found.request };
}

/**
 * The decision failure an edit refusal is reported as. A taken id or run ownership
 * cannot happen for ids the gate just made in the original's own run: both mean the
 * request changed under the edit, which the approver sees as already decided. An
 * `invalid_edit` would be a gate bug (it builds every part), reported as such.
 */
function editFailure(reason: EditRefusal): DecisionFailure {
  switch (reason) {
    case 'conflict':
    case 'run_owned_by_other_agent':
      return 'already_decided';
    case 'invalid_edit':
      return 'invalid_decision';
    default:
      return reason;
  }
}

/**
 * The rule the edited call's request carries.
 * - `approve`: the edited call's own rule (approvers, count, TTL). Its deadline is the
 *   sooner of now + that rule's TTL and the original request's deadline: an edit
 *   never extends how long the agent's call may wait or its token may live.
 * - `allow`: the original request's rule and deadline. Policy would let the edited call
 *   run without approval, but it exists only because an approver changed a call that
 *   needed one; it stays an approved request so the edit is recorded, signed and
 *   attributed to the editor, never a silent free call (authorize requires its token:
 *   an edited call is always an approved call).
 */
function editedRule(
  view: DecisionView,
  verdict:
    | { kind: 'allow'; ruleId: string }
    | {
        kind: 'approve';
        ruleId: string;
        description?: string | undefined;
        approval: { eligible: ApproverRule; requiredApprovals: number; ttlSeconds: number; passkey?: 'required' | undefined };
      },
  now: number,
): EditedRule {
  // A passkey rule on either call holds for the edited one: an edit never drops the need for a passkey.
  const passkey = view.request.passkey === 'required' || (verdict.kind === 'approve' && verdict.approval.passkey === 'required');
  const withPasskey = (rule: EditedRule): EditedRule => (passkey ? { ...rule, passkey: 'required' } : rule);
  if (verdict.kind === 'allow') {
    const { eligible, requiredApprovals, expiresAt, ruleId, ruleDescription } = view.request;
    return withPasskey({ eligible, requiredApprovals, expiresAt, ruleId, ...(ruleDescription === undefined ? {} : { ruleDescription }) });
  }
  return withPasskey({
    eligible: verdict.approval.eligible,
    requiredApprovals: verdict.approval.requiredApprovals,
    expiresAt: Math.min(view.request.expiresAt, now + verdict.approval.ttlSeconds * 1000),
    ruleId: verdict.ruleId,
    ...(verdict.description === undefined ? {} : { ruleDescription: verdict.description }),
  });
}

/** Why the edited arguments do not fit the tool's pinned input schema, or undefined when they do. */
async function editSchemaProblem(deps: GateDeps, original: Proposal, args: unknown): Promise<{ message: string; problems?: InputSchemaProblem[] } | undefined> {
  // Without the pinned definition there is no schema to trust: refuse rather than wave the edit through.
  const known = await checkCallDefinition(deps, original);
  if (!known.ok) return { message: known.reason === 'unknown_tool' ? known.message : 'the tool definition changed since the call was proposed' };
  const checked = checkInputSchema(known.entry.definition?.inputSchema, args);
  if (checked.ok) return undefined;
  const listed = checked.problems.map((p) => `${p.pointer === '' ? '(arguments)' : p.pointer}: ${p.message}`).join('; ');
  return { message: `does not match the tool's input schema: ${listed}`, problems: checked.problems };
}

function fail(reason: Extract<DecisionOutcome, { ok: false }>['reason'], message: string): DecisionOutcome {
  return { ok: false, reason, message };
}
