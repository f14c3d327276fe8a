import { projectionDigestsProblem } from '../gate/relay/projections.ts';
import type { ApprovalRequest, ApproverRule, Decision, NewApprovalRequest, Proposal, ProposalInput, ResultRecord } from '../ledger/types.ts';
import { LedgerError } from '../ledger/errors.ts';
import { evidenceJson, readPasskeyEvidence } from '../passkey/assertion-shape.ts';
import type { PasskeyEvidence } from '../passkey/types.ts';
import { integer, json, oneOf, optionalInteger, optionalText, type Row, text } from './row-fields.ts';

// Optional fields are set only when the column is not NULL, so a record read
// back has exactly the keys it was written with (exactOptionalPropertyTypes).

export function proposalFromRow(row: Row): Proposal {
  const proposal: Proposal = {
    proposalId: text(row, 'proposal_id'),
    runId: text(row, 'run_id'),
    sessionId: text(row, 'session_id'),
    principal: text(row, 'principal'),
    agent: text(row, 'agent'),
    callId: text(row, 'call_id'),
    toolName: text(row, 'tool_name'),
    canonicalArgs: text(row, 'canonical_args'),
    argsDigest: text(row, 'args_digest'),
    createdAt: integer(row, 'created_at'),
    state: oneOf(row, 'state', ['proposed', 'dispatched']),
  };
  const definitionDigest = optionalText(row, 'definition_digest');
  if (definitionDigest !== undefined) proposal.definitionDigest = definitionDigest;
  const responseRef = optionalText(row, 'model_response_ref');
  if (responseRef !== undefined) proposal.responseRef = responseRef;
  const parentProposalId = optionalText(row, 'parent_proposal_id');
  if (parentProposalId !== undefined) proposal.parentProposalId = parentProposalId;
  const context = optionalText(row, 'context');
  if (context !== undefined) proposal.context = context;
  const registeredBy = optionalText(row, 'registered_by');
  if (registeredBy !== undefined) proposal.registeredBy = registeredBy;
  const executedBy = optionalText(row, 'executed_by');
  if (executedBy !== undefined) proposal.executedBy = oneOf(row, 'executed_by', ['provider'] as const);
  const dispatchedAt = optionalInteger(row, 'dispatched_at');
  if (dispatchedAt !== undefined) proposal.dispatchedAt = dispatchedAt;
  if (row.result_status !== null && row.result_status !== undefined) {
    proposal.result = {
      status: oneOf(row, 'result_status', ['succeeded', 'failed']),
      resultDigest: text(row, 'result_digest'),
      at: integer(row, 'result_at'),
    };
    const projections = optionalProjections(row);
    if (projections !== undefined) proposal.result.projections = projections;
  }
  return proposal;
}

/** The result_projections column (JSON text, migration 5), checked: digests only, of known projections. */
function optionalProjections(row: Row): Record<string, string> | undefined {
  if (row.result_projections === null || row.result_projections === undefined) return undefined;
  const value = json(row, 'result_projections');
  const problem = projectionDigestsProblem(value);
  if (problem !== undefined) throw new LedgerError('corrupt_record', `column result_projections: ${problem}`);
  return value as Record<string, string>;
}

/** The result_projections column for a result being recorded: its JSON text, or NULL. */
export function projectionsColumn(result: ResultRecord): string | null {
  return result.projections === undefined ? null : JSON.stringify(result.projections);
}

/** Parameters for inserting a proposal, in the column order of INSERT_PROPOSAL. */
export function proposalParams(input: ProposalInput): (string | number | null)[] {
  return [
    input.proposalId,
    input.runId,
    input.sessionId,
    input.principal,
    input.callId,
    input.toolName,
    input.definitionDigest ?? null,
    input.canonicalArgs,
    input.argsDigest,
    input.responseRef ?? null,
    input.parentProposalId ?? null,
    input.createdAt,
    input.agent,
    input.context ?? null,
    input.registeredBy ?? null,
    input.executedBy ?? null,
  ];
}

/** Parameters for inserting a request: request_id, proposal_id, created_at, expires_at, required_approvals, eligible, rule_id, rule_description, passkey. */
export function requestParams(input: NewApprovalRequest): (string | number | null)[] {
  return [
    input.requestId,
    input.proposalId,
    input.createdAt,
    input.expiresAt,
    input.requiredApprovals,
    JSON.stringify(input.eligible),
    input.ruleId ?? null,
    input.ruleDescription ?? null,
    input.passkey ?? null,
  ];
}

/** Parameters for inserting a decision: request_id, position, approver, decision, reason, at, edited_proposal_id, passkey. */
export function decisionParams(requestId: string, position: number, decision: Decision): (string | number | null)[] {
  return [
    requestId,
    position,
    decision.approver,
    decision.decision,
    decision.reason ?? null,
    decision.at,
    decision.editedProposalId ?? null,
    passkeyColumn(decision),
  ];
}

/** `row` carries the request columns plus `decisions`, a JSON array built by the query. */
export function requestFromRow(row: Row): ApprovalRequest {
  const eligible = json(row, 'eligible');
  if (typeof eligible !== 'object' || eligible === null || Array.isArray(eligible)) {
    throw new LedgerError('corrupt_record', 'column eligible: expected a JSON object');
  }
  const request: ApprovalRequest = {
    requestId: text(row, 'request_id'),
    proposalId: text(row, 'proposal_id'),
    createdAt: integer(row, 'created_at'),
    expiresAt: integer(row, 'expires_at'),
    requiredApprovals: integer(row, 'required_approvals'),
    eligible: eligible as ApproverRule,
    status: oneOf(row, 'status', ['pending', 'approved', 'denied', 'revoked', 'consumed', 'edited']),
    decisions: decisionsFrom(row.decisions),
  };
  const ruleId = optionalText(row, 'rule_id');
  if (ruleId !== undefined) request.ruleId = ruleId;
  const ruleDescription = optionalText(row, 'rule_description');
  if (ruleDescription !== undefined) request.ruleDescription = ruleDescription;
  const tokenId = optionalText(row, 'token_id');
  if (tokenId !== undefined) request.tokenId = tokenId;
  const approvedAt = optionalInteger(row, 'approved_at');
  if (approvedAt !== undefined) request.approvedAt = approvedAt;
  const consumedAt = optionalInteger(row, 'consumed_at');
  if (consumedAt !== undefined) request.consumedAt = consumedAt;
  // Migration 8. Anything but NULL or 'required' is corrupt, never read as "no passkey needed".
  if (row.passkey !== null && row.passkey !== undefined) request.passkey = oneOf(row, 'passkey', ['required'] as const);
  return request;
}

function decisionsFrom(value: unknown): Decision[] {
  const list = json({ decisions: value }, 'decisions');
  if (!Array.isArray(list)) throw new LedgerError('corrupt_record', 'column decisions: expected a JSON array');
  return list.map((value: unknown) => {
    if (typeof value !== 'object' || value === null) {
      throw new LedgerError('corrupt_record', 'column decisions: expected JSON objects');
    }
    const item = value as Row;
    const decision: Decision = {
      approver: text(item, 'approver'),
      decision: oneOf(item, 'decision', ['approve', 'deny']),
      at: integer(item, 'at'),
    };
    const reason = optionalText(item, 'reason');
    if (reason !== undefined) decision.reason = reason;
    const editedProposalId = optionalText(item, 'editedProposalId');
    if (editedProposalId !== undefined) decision.editedProposalId = editedProposalId;
    const passkey = optionalEvidence(item.passkey);
    if (passkey !== undefined) decision.passkey = passkey;
    return decision;
  });
}

/** A decision's passkey column (JSON, migration 8): NULL, or evidence that reads back whole. */
function optionalEvidence(value: unknown): PasskeyEvidence | undefined {
  if (value === null || value === undefined) return undefined;
  const parsed = typeof value === 'string' ? json({ passkey: value }, 'passkey') : value;
  const evidence = readPasskeyEvidence(parsed);
  if (evidence === undefined) throw new LedgerError('corrupt_record', 'column decisions.passkey: not a passkey assertion');
  return evidence;
}

/** The passkey column for a decision being recorded: its JSON text, or NULL. */
export function passkeyColumn(decision: Decision): string | null {
  return decision.passkey === undefined ? null : JSON.stringify(evidenceJson(decision.passkey));
}
