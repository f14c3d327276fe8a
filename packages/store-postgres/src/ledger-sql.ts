import { decideSql } from './decide-sql.ts';
import { preparedStatement } from './prepared-statement.ts';
import { claimAndInsertText, proposeSql } from './propose-sql.ts';
import { CONSUMED_STATE, PROPOSAL_COLUMNS, REQUEST_COLUMNS } from './sql-columns.ts';

/** The ledger's SQL for one schema (`s` is the quoted schema name). */
export function ledgerSql(s: string) {
  const selectRequest = `
    SELECT ${REQUEST_COLUMNS}, (
      SELECT COALESCE(json_agg(json_build_object('approver', d.approver, 'decision', d.decision, 'reason', d.reason,
        'at', d.at, 'editedProposalId', d.edited_proposal_id, 'passkey', d.passkey) ORDER BY d.position), '[]'::json)
      FROM ${s}.decisions d WHERE d.request_id = r.request_id
    ) AS decisions
    FROM ${s}.approval_requests r`;
  return {
    /** recordProposal's statements when its records go with the insert (see propose-sql.ts). */
    propose: proposeSql(s),
    ...decideSql(s),
    insertProposal: `
      INSERT INTO ${s}.proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, definition_digest,
        canonical_args, args_digest, model_response_ref, parent_proposal_id, created_at, agent, context, registered_by, executed_by, state, dispatched_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, ${CONSUMED_STATE}, $17::bigint)
      ON CONFLICT DO NOTHING
      RETURNING *`,
    /**
     * insertProposal for a run already known to be $13's (RunOwners: seen committed, and a
     * runs row never changes): no claim, listed columns, prepared.
     */
    insertOwnedProposal: preparedStatement(`
      INSERT INTO ${s}.proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, definition_digest,
        canonical_args, args_digest, model_response_ref, parent_proposal_id, created_at, agent, context, registered_by, executed_by, state, dispatched_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, ${CONSUMED_STATE}, $17::bigint)
      ON CONFLICT DO NOTHING
      RETURNING ${PROPOSAL_COLUMNS}`),
    /**
     * insertOwnedProposal and its new approval request in ONE statement (one round trip
     * instead of two): $1…$16 as insertOwnedProposal, then the request's $17 id, $18
     * created_at, $19 expires_at, $20 required_approvals, $21 eligible, $22 rule_id, $23
     * rule_description, $24 passkey. The request is inserted only when the proposal was
     * (it is fed by the proposal insert's RETURNING), so a call that was already there
     * opens nothing, exactly as when the two were sent one after the other. Returns the
     * proposal's columns and the request as JSON (with no decisions yet), or no row.
     */
    insertOwnedProposalWithRequest: preparedStatement(`
      WITH p AS (
        INSERT INTO ${s}.proposals (proposal_id, run_id, session_id, principal, call_id, tool_name, definition_digest,
          canonical_args, args_digest, model_response_ref, parent_proposal_id, created_at, agent, context, registered_by, executed_by, state)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 'proposed')
        ON CONFLICT DO NOTHING
        RETURNING ${PROPOSAL_COLUMNS}
      ), r AS (
        INSERT INTO ${s}.approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals,
          eligible, rule_id, rule_description, passkey, status)
        SELECT $17::text, p.proposal_id, $18::bigint, $19::bigint, $20::integer, $21::jsonb, $22::text, $23::text, $24::text, 'pending' FROM p
        RETURNING ${REQUEST_COLUMNS.replaceAll('r.', '')}, '[]'::json AS decisions
      )
      SELECT p.*, (SELECT row_to_json(r) FROM r) AS request_json FROM p`),
    runOwner: `SELECT agent FROM ${s}.runs WHERE run_id = $1`,
    /**
     * recordProposal as ONE statement and one round trip ($1…$16 as insertProposal; the
     * claim uses $2 run, $13 agent, $12 now). `claim` takes the run for $13 if nobody
     * has; `owner` is the run's owner: the claim's row is invisible to the SELECT of the
     * same statement, so at most one branch answers. The proposal is inserted only if
     * that owner is $13, so another agent's call never touches the run's proposals.
     * `run_owner` is NULL only when another transaction inserted the run after our
     * snapshot: ON CONFLICT then waited for it to commit, nothing was inserted, and the
     * caller reads the owner again with `runOwner` (a fresh snapshot that sees the
     * winner) and goes on step by step with `insertProposal`.
     */
    claimAndInsertProposal: preparedStatement(claimAndInsertText(s, PROPOSAL_COLUMNS)),
    proposalById: preparedStatement(`SELECT ${PROPOSAL_COLUMNS} FROM ${s}.proposals WHERE proposal_id = $1`),
    proposalByCall: `SELECT * FROM ${s}.proposals WHERE run_id = $1 AND call_id = $2`,
    recordCallRefusal: `INSERT INTO ${s}.call_refusals (proposal_id, text_digest, recorded_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    hasCallRefusal: `SELECT 1 AS found FROM ${s}.call_refusals WHERE proposal_id = $1 AND text_digest = $2`,
    openCall: `
      SELECT * FROM ${s}.proposals WHERE run_id = $1 AND tool_name = $2 AND args_digest = $3 AND state = 'proposed'
      ORDER BY executed_by IS NOT NULL, created_at, proposal_id COLLATE "C" LIMIT 1`,
    insertRequest: `
      INSERT INTO ${s}.approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals,
        eligible, rule_id, rule_description, passkey, status)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending')
      RETURNING *, '[]'::json AS decisions`,
    /** createApprovalRequest's insert, except that a taken id returns no row instead of failing the transaction. */
    insertRequestIfNew: `
      INSERT INTO ${s}.approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals,
        eligible, rule_id, rule_description, passkey, status)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending')
      ON CONFLICT DO NOTHING
      RETURNING request_id`,
    requestById: `${selectRequest} WHERE r.request_id = $1`,
    requestByProposal: preparedStatement(`${selectRequest} WHERE r.proposal_id = $1`),
    /** The proposal's columns plus its request (and decisions) as one JSON column, or NULL. */
    proposalWithRequest: preparedStatement(
      `SELECT ${PROPOSAL_COLUMNS}, (SELECT row_to_json(q) FROM (${selectRequest} WHERE r.proposal_id = $1) q) AS request_json
       FROM ${s}.proposals WHERE proposal_id = $1`,
    ),
    /** `proposalWithRequest` found by the request's id ($1): the request's call, with the request as one JSON column; no row for an unknown request. */
    requestWithProposal: preparedStatement(
      `SELECT ${PROPOSAL_COLUMNS}, (SELECT row_to_json(q) FROM (${selectRequest} WHERE r.request_id = $1) q) AS request_json
       FROM ${s}.proposals WHERE proposal_id = (SELECT proposal_id FROM ${s}.approval_requests WHERE request_id = $1)`,
    ),
    /**
     * Only the lock. The request is read by a separate statement afterwards: under
     * READ COMMITTED a statement's snapshot is taken before it waits for a lock, so
     * a decisions subquery in this statement would miss decisions committed by the
     * transaction we waited for.
     */
    lockRequest: `SELECT 1 FROM ${s}.approval_requests WHERE request_id = $1 FOR UPDATE`,
    /**
     * $1 = effective status or NULL for all, $2 = now, $3 = limit; $4 = approver id or
     * NULL for everyone's requests, $5 = their roles, $6 = the principals they are.
     * The eligibility test is `eligibleUnder` (core) in SQL: the call's own principal
     * only under principalSelf: true, anyone else when named or holding a listed role.
     */
    listRequests: `${selectRequest}
      JOIN ${s}.proposals p ON p.proposal_id = r.proposal_id
      WHERE CASE
        WHEN $1::text IS NULL THEN true
        WHEN $1 = 'expired' THEN r.status IN ('pending', 'approved') AND r.expires_at <= $2
        WHEN $1 IN ('pending', 'approved') THEN r.status = $1 AND r.expires_at > $2
        ELSE r.status = $1
      END
      AND CASE
        WHEN $4::text IS NULL THEN true
        WHEN p.principal = ANY($6::text[]) THEN COALESCE(r.eligible -> 'principalSelf' = 'true'::jsonb, false)
        ELSE COALESCE(r.eligible -> 'approvers' ? $4::text, false) OR COALESCE(r.eligible -> 'roles' ?| $5::text[], false)
      END
      ORDER BY r.created_at DESC, r.request_id COLLATE "C" DESC
      LIMIT $3`,
    insertDecision: `
      INSERT INTO ${s}.decisions (request_id, position, approver, decision, reason, at, edited_proposal_id, passkey)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
    /** Removes one approver's decision and closes the gap in positions ($1 request, $2 approver); the caller holds the request's lock. */
    withdrawDecision: `
      WITH removed AS (DELETE FROM ${s}.decisions WHERE request_id = $1 AND approver = $2 RETURNING position)
      UPDATE ${s}.decisions d SET position = d.position - 1
      FROM removed WHERE d.request_id = $1 AND d.position > removed.position`,
    editRequest: `UPDATE ${s}.approval_requests SET status = 'edited' WHERE request_id = $1`,
    approveRequest: `UPDATE ${s}.approval_requests SET status = 'approved', token_id = $2, approved_at = $3 WHERE request_id = $1`,
    revokeRequest: `
      UPDATE ${s}.approval_requests SET status = 'revoked'
      WHERE request_id = $1 AND status IN ('pending', 'approved') AND expires_at > $2`,
    /**
     * The single-use step as ONE statement and ONE round trip, for winners and losers
     * alike ($1 proposal, $2 request or NULL, $3 token id, $4 now). It returns one row:
     * the dispatched proposal (`d.*`, all NULL unless this call won) plus what the
     * caller needs to name a failure without reading again: `seen_state`,
     * `proposal_locked` and, for a loser, `locked_request` (the request row as locked).
     *
     * Why it is exactly-once under READ COMMITTED, and why the answer is never stale:
     * - `locked` takes the proposal's row lock (FOR NO KEY UPDATE, the lock the UPDATE
     *   below would take) if the row is still `proposed`. A concurrent consumer of the
     *   same proposal waits for it; when the winner commits, PostgreSQL re-reads the
     *   newest row version and re-checks `state = 'proposed'` (EvalPlanQual), which now
     *   fails, so the loser's `locked` is empty and it changes nothing.
     * - `request` then locks the request row (proposal before request, always) and,
     *   like any SELECT … FOR UPDATE under READ COMMITTED, returns the NEWEST committed
     *   version, not the statement's snapshot: after it, nobody can change the row
     *   until we commit. The decision is made on those locked values: `consumed` moves
     *   the request only if the locked version is approved, unexpired and holds this
     *   token. Its own WHERE finds the row by id, and EvalPlanQual applies the update
     *   to that same newest version. A revoke that committed first is therefore seen
     *   and wins; one that comes later waits for us and then finds `consumed`. The
     *   row conditions after the EXISTS are a second guard, re-checked on the newest
     *   version too; they admit a snapshot version still `pending` (an approval that
     *   committed after our snapshot but before our lock), since the lock decides.
     *   No retry is needed: nothing is decided on the snapshot except "missing".
     * - `dispatched` moves the proposal only if we hold its lock and there is no
     *   approval to check or `consumed` returned the request: both rows change
     *   together or neither does.
     * - Failure reasons come from the same statement: the locked request values above,
     *   or, when `locked` is empty, `seen` (the proposal in the statement's snapshot).
     *   `locked` is empty only if the proposal is missing or its newest version is not
     *   `proposed`; proposals are never deleted and only ever move proposed → dispatched,
     *   so "seen, but not locked" means a concurrent consume won: already_consumed.
     *   A proposal or request created after our snapshot reads as not found: this
     *   consume is ordered before that insert, which was concurrent with it.
     * A loser that finds the proposal already dispatched in its snapshot takes no lock
     * and writes nothing. Lock order is proposal then request everywhere; addDecision,
     * revoke and recordEdit lock only the (original) request, so no cycle (no deadlock)
     * is possible.
     */
    consume: preparedStatement(consumeText(s, '')),
    /** `consume` that also sets the transaction-local setting named by $5 to 'y' exactly when it dispatched (see `WRITTEN_COLUMN`). */
    consumeFlagged: preparedStatement(consumeText(s, WRITTEN_COLUMN('$5', 'd.proposal_id IS NOT NULL'))),
    /**
     * `consume` for a call that needs no approval ($1 proposal, $2 now), same result
     * columns. Nothing but the proposal row decides, so the UPDATE alone is the
     * single-use step: a concurrent consumer waits for its row lock, and when the winner
     * commits PostgreSQL re-checks `state = 'proposed'` on the newest version
     * (EvalPlanQual), which fails, so the loser changes nothing. `proposal_locked` is
     * true exactly when this statement dispatched, so a loser reads `seen_state`
     * (its snapshot): NULL is not_found, anything else already_consumed, as in
     * `consume`. About half the backend CPU of `consume`, which also plans, runs and
     * joins the request's lock and update. Never for a consume with an approval: the
     * request's status, token and expiry are not looked at here.
     */
    consumeUnapproved: preparedStatement(consumeUnapprovedText(s, '')),
    /** `consumeUnapproved` that sets the setting named by $3 to 'y' exactly when it dispatched. */
    consumeUnapprovedFlagged: preparedStatement(consumeUnapprovedText(s, WRITTEN_COLUMN('$3', 'd.proposal_id IS NOT NULL'))),
    /**
     * The call a provider output is recorded on, row-locked until COMMIT: the output's rule
     * (`providerOutputChange`) decides on the newest committed version, and
     * `recordProviderOutput` below changes that version.
     */
    proposalForUpdate: preparedStatement(`SELECT ${PROPOSAL_COLUMNS} FROM ${s}.proposals WHERE proposal_id = $1 FOR UPDATE`),
    /** A provider's call marked run ($2 dispatched_at) with its output ($3 digest, $4 at), on the row `proposalForUpdate` locked. */
    recordProviderOutput: preparedStatement(`UPDATE ${s}.proposals SET state = 'dispatched', dispatched_at = $2, result_status = 'succeeded',
      result_digest = $3, result_at = $4 WHERE proposal_id = $1 AND executed_by = 'provider' AND result_status IS NULL`),
    // Write-once: only a dispatched call without a result takes one. When nothing
    // changed, the caller reads the row to explain why (a result, once set, never changes).
    recordResult: preparedStatement(`UPDATE ${s}.proposals SET result_status = $2, result_digest = $3, result_at = $4,
      result_projections = $5 WHERE proposal_id = $1 AND state = 'dispatched' AND result_status IS NULL`),
    /** `recordResult` that sets the setting named by $6 to 'y' exactly when it stored the result (RETURNING runs only for the row it changed). */
    recordResultFlagged: preparedStatement(`UPDATE ${s}.proposals SET result_status = $2, result_digest = $3, result_at = $4,
      result_projections = $5 WHERE proposal_id = $1 AND state = 'dispatched' AND result_status IS NULL
      RETURNING set_config($6, 'y', true) AS written`),
    /**
     * The call, unless the setting named by $2 says this transaction's `recordResultFlagged`
     * stored its result: sent right behind that UPDATE (same round trip), so a refused
     * result is explained from the row as committed, and a stored one costs no row.
     */
    proposalUnlessWritten: preparedStatement(
      `SELECT ${PROPOSAL_COLUMNS} FROM ${s}.proposals WHERE proposal_id = $1 AND current_setting($2, true) IS DISTINCT FROM 'y'`,
    ),
  };
}

export type LedgerSql = ReturnType<typeof ledgerSql>;

/**
 * A result column that sets the transaction-local setting named by `param` to 'y' when
 * `condition` holds (else ''): how a write tells the chaining insert sent right behind it,
 * in the same round trip, whether it took effect (`chainInsertIfStatement`). Local to the
 * transaction (and undone with a savepoint rolled back), so it never outlives it.
 */
const WRITTEN_COLUMN = (param: string, condition: string) => `,
        set_config(${param}::text, CASE WHEN ${condition} THEN 'y' ELSE '' END, true) AS written`;

/** The `consume` statement (documented in `ledgerSql`), with `extra` result columns. */
function consumeText(s: string, extra: string): string {
  return `
      WITH seen AS MATERIALIZED (
        SELECT state FROM ${s}.proposals WHERE proposal_id = $1
      ), locked AS MATERIALIZED (
        SELECT proposal_id FROM ${s}.proposals
        WHERE proposal_id = $1 AND state = 'proposed'
        FOR NO KEY UPDATE
      ), request AS MATERIALIZED (
        SELECT * FROM ${s}.approval_requests
        WHERE $2::text IS NOT NULL AND request_id = $2 AND proposal_id = $1
          AND EXISTS (SELECT 1 FROM locked)
        FOR NO KEY UPDATE
      ), consumed AS (
        UPDATE ${s}.approval_requests SET status = 'consumed', consumed_at = $4
        WHERE request_id = $2 AND proposal_id = $1
          AND EXISTS (SELECT 1 FROM request WHERE status = 'approved' AND token_id = $3 AND expires_at > $4)
          AND status IN ('pending', 'approved') AND (token_id IS NULL OR token_id = $3) AND expires_at > $4
        RETURNING request_id
      ), dispatched AS (
        UPDATE ${s}.proposals SET state = 'dispatched', dispatched_at = $4
        WHERE proposal_id = $1 AND state = 'proposed'
          AND EXISTS (SELECT 1 FROM locked)
          AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM consumed))
        RETURNING ${PROPOSAL_COLUMNS}
      )
      SELECT d.*,
        (SELECT state FROM seen) AS seen_state,
        EXISTS (SELECT 1 FROM locked) AS proposal_locked,
        CASE WHEN d.proposal_id IS NULL THEN row_to_json(r) END AS locked_request${extra}
      FROM (VALUES (1)) AS one (x)
      LEFT JOIN request r ON true
      LEFT JOIN dispatched d ON true`;
}

/** The `consumeUnapproved` statement (documented in `ledgerSql`), with `extra` result columns. */
function consumeUnapprovedText(s: string, extra: string): string {
  return `
      WITH seen AS MATERIALIZED (
        SELECT state FROM ${s}.proposals WHERE proposal_id = $1
      ), dispatched AS (
        UPDATE ${s}.proposals SET state = 'dispatched', dispatched_at = $2
        WHERE proposal_id = $1 AND state = 'proposed'
        RETURNING ${PROPOSAL_COLUMNS}
      )
      SELECT d.*,
        (SELECT state FROM seen) AS seen_state,
        d.proposal_id IS NOT NULL AS proposal_locked,
        NULL::json AS locked_request${extra}
      FROM (VALUES (1)) AS one (x)
      LEFT JOIN dispatched d ON true`;
}
