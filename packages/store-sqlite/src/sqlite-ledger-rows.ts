import type { ApprovalRequest, Decision, EligibilityFilter, ListRequestsFilter, NewApprovalRequest, Proposal, ProposalInput } from '@countersign/core/ledger';
import { decisionParams, proposalFromRow, proposalParams, requestFromRow, requestParams } from '@countersign/core/store-kit';
import type { SqliteConnection } from './connection.ts';

// The ledger's statements and row reads on SQLite, shared by SqliteLedger and its
// multi-row operations (sqlite-edit.ts). Every function runs on the caller's
// connection, inside whatever transaction the caller is in.

const INSERT_PROPOSAL = `
  INSERT INTO proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, definition_digest,
    canonical_args, args_digest, model_response_ref, parent_proposal_id, created_at, agent, context, state)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'proposed')`;

// The decisions ride along as one JSON array, so a request is read in one statement.
export const SELECT_REQUEST = `
  SELECT r.*, (
    SELECT json_group_array(json_object('approver', d.approver, 'decision', d.decision, 'reason', d.reason,
      'at', d.at, 'editedProposalId', d.edited_proposal_id, 'passkey', json(d.passkey)) ORDER BY d.position)
    FROM decisions d WHERE d.request_id = r.request_id
  ) AS decisions
  FROM approval_requests r`;

/** WHERE clause and parameters selecting requests by their effective status at `now`. */
export function statusFilter(status: ListRequestsFilter['status'], now: number): { sql: string; params: (string | number)[] } {
  switch (status) {
    case undefined:
      return { sql: '1 = 1', params: [] };
    case 'expired':
      return { sql: "r.status IN ('pending', 'approved') AND r.expires_at <= ?", params: [now] };
    case 'pending':
    case 'approved':
      return { sql: 'r.status = ? AND r.expires_at > ?', params: [status, now] };
    default:
      // Bound, never spliced: the filter may come straight from an HTTP query string.
      return { sql: 'r.status = ?', params: [status] };
  }
}

/**
 * WHERE clause keeping only requests `who` may decide: `eligibleUnder` in SQL, over the
 * request's stored rule (JSON) and its call's principal (`p`, joined by the caller).
 * The call's own principal decides only under principalSelf: true; anyone else when
 * named in `approvers` or holding one of `roles`. JSON true reads back as 1.
 */
export function eligibilityFilter(who: EligibilityFilter | undefined): { sql: string; params: string[] } {
  if (who === undefined) return { sql: '1 = 1', params: [] };
  return {
    sql: `CASE WHEN p.principal IN (SELECT value FROM json_each(?))
        THEN json_type(r.eligible, '$.principalSelf') = 'true'
        ELSE EXISTS (SELECT 1 FROM json_each(r.eligible, '$.approvers') a WHERE a.value = ?)
          OR EXISTS (SELECT 1 FROM json_each(r.eligible, '$.roles') a WHERE a.value IN (SELECT value FROM json_each(?)))
      END`,
    params: [JSON.stringify(who.principals), who.approverId, JSON.stringify(who.roles)],
  };
}

export function runOwnerRow(conn: SqliteConnection, runId: string): string | undefined {
  const row = conn.statement('SELECT agent FROM runs WHERE run_id = ?').get(runId);
  return row === undefined ? undefined : String(row.agent);
}

export function proposalRow(conn: SqliteConnection, proposalId: string): Proposal | undefined {
  const row = conn.statement('SELECT * FROM proposals WHERE proposal_id = ?').get(proposalId);
  return row === undefined ? undefined : proposalFromRow(row);
}

export function proposalByCallRow(conn: SqliteConnection, runId: string, callId: string): Proposal | undefined {
  const row = conn.statement('SELECT * FROM proposals WHERE run_id = ? AND call_id = ?').get(runId, callId);
  return row === undefined ? undefined : proposalFromRow(row);
}

/** The run's oldest undispatched call of this tool and arguments (found through the (run_id, call_id) index's run prefix). */
export function openCallRow(conn: SqliteConnection, runId: string, toolName: string, argsDigest: string): Proposal | undefined {
  const row = conn
    .statement(`SELECT * FROM proposals WHERE run_id = ? AND tool_name = ? AND args_digest = ? AND state = 'proposed' ORDER BY created_at, proposal_id LIMIT 1`)
    .get(runId, toolName, argsDigest);
  return row === undefined ? undefined : proposalFromRow(row);
}

export function requestRow(conn: SqliteConnection, requestId: string): ApprovalRequest | undefined {
  const row = conn.statement(`${SELECT_REQUEST} WHERE r.request_id = ?`).get(requestId);
  return row === undefined ? undefined : requestFromRow(row);
}

/**
 * Inserts `input` as a new proposal and returns it as a read would: built from the
 * input rather than read back (the row holds exactly these columns, state 'proposed'),
 * saving a SELECT and a row mapping inside the write lock on every call. Optional
 * fields appear only when set, as proposalFromRow leaves them out for NULL columns.
 */
export function insertProposal(conn: SqliteConnection, input: ProposalInput): Proposal {
  conn.statement(INSERT_PROPOSAL).run(...proposalParams(input));
  const proposal: Proposal = {
    proposalId: input.proposalId,
    runId: input.runId,
    sessionId: input.sessionId,
    principal: input.principal,
    agent: input.agent,
    callId: input.callId,
    toolName: input.toolName,
    canonicalArgs: input.canonicalArgs,
    argsDigest: input.argsDigest,
    createdAt: input.createdAt,
    state: 'proposed',
  };
  if (input.definitionDigest !== undefined) proposal.definitionDigest = input.definitionDigest;
  if (input.modelResponseRef !== undefined) proposal.modelResponseRef = input.modelResponseRef;
  if (input.parentProposalId !== undefined) proposal.parentProposalId = input.parentProposalId;
  if (input.context !== undefined) proposal.context = input.context;
  return proposal;
}

export function insertRequest(conn: SqliteConnection, input: NewApprovalRequest): void {
  conn
    .statement(
      `INSERT INTO approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals,
         eligible, rule_id, rule_description, passkey, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
    )
    .run(...requestParams(input));
}

/** Appends `decision` at `position` (1-based) and moves the request to `next`. */
export function insertDecision(
  conn: SqliteConnection,
  requestId: string,
  position: number,
  decision: Decision,
  next: { status: 'pending' | 'denied' | 'edited' } | { status: 'approved'; tokenId: string; at: number },
): void {
  conn
    .statement(
      `INSERT INTO decisions (request_id, position, approver, decision, reason, at, edited_proposal_id, passkey)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(...decisionParams(requestId, position, decision));
  if (next.status === 'denied' || next.status === 'edited') {
    conn.statement('UPDATE approval_requests SET status = ? WHERE request_id = ?').run(next.status, requestId);
  } else if (next.status === 'approved') {
    conn.statement("UPDATE approval_requests SET status = 'approved', token_id = ?, approved_at = ? WHERE request_id = ?").run(next.tokenId, next.at, requestId);
  }
}
