import { type PreparedStatement, preparedStatement } from './prepared-statement.ts';

/**
 * The decide step's SQL for one schema (`s` quoted). Its read (the request with its call,
 * one statement) is ledger-sql.ts's `requestWithProposal`, shared with the token step.
 */
export function decideSql(s: string): { decide: PreparedStatement } {
  return {
    /**
     * One decision as ONE statement, sent right behind `lockRequest` (same round trip):
     * $1 request, $2 approver, $3 decision, $4 reason, $5 at, $6 edited proposal, $7
     * passkey evidence, $8 now, $9 the token id if it approves, $10 the flag prefix or NULL.
     *
     * Its snapshot is taken when it starts, after the lock was granted (a connection runs
     * its statements in the order sent), so it sees every decision committed before; and
     * every writer of a request's decisions or status holds that row's lock, so nothing
     * it read changes before COMMIT. On that state it applies the rules of core's
     * `decisionRefusal` (pending, unexpired at $8, a known decision, not this approver's
     * second) and `statusAfterDecision` (a deny ends the request; n of m approvals approve
     * it): the decision goes in at the next position and the request moves if its status
     * changes. Returns the status it left the request in, or no row when refused; the
     * caller reads the request back behind it to answer, and checks the two agree.
     *
     * `written` sets the transaction-local setting `$10_<status>` to 'y': the audit
     * records the caller built for that status (AuditByStatus) are chained by the insert
     * sent behind (chainInsertIfStatement), the others are not, so a decision and its
     * record leave with COMMIT in one round trip, whatever a concurrent decision did first.
     */
    decide: preparedStatement(`
      WITH seen AS MATERIALIZED (
        SELECT r.required_approvals,
          (SELECT count(*) FROM ${s}.decisions d WHERE d.request_id = r.request_id) AS decided,
          (SELECT count(*) FROM ${s}.decisions d WHERE d.request_id = r.request_id AND d.decision = 'approve') AS approvals
        FROM ${s}.approval_requests r
        WHERE r.request_id = $1::text AND r.status = 'pending' AND r.expires_at > $8::bigint AND $3::text IN ('approve', 'deny')
          AND NOT EXISTS (SELECT 1 FROM ${s}.decisions d WHERE d.request_id = r.request_id AND d.approver = $2::text)
      ), next AS MATERIALIZED (
        SELECT decided + 1 AS position,
          CASE WHEN $3::text = 'deny' THEN 'denied' WHEN approvals + 1 >= required_approvals THEN 'approved' ELSE 'pending' END AS status
        FROM seen
      ), inserted AS (
        INSERT INTO ${s}.decisions (request_id, position, approver, decision, reason, at, edited_proposal_id, passkey)
        SELECT $1::text, n.position, $2::text, $3::text, $4::text, $5::bigint, $6::text, $7::jsonb FROM next n
      ), moved AS (
        UPDATE ${s}.approval_requests r SET status = n.status,
          token_id = CASE WHEN n.status = 'approved' THEN $9::text ELSE r.token_id END,
          approved_at = CASE WHEN n.status = 'approved' THEN $8::bigint ELSE r.approved_at END
        FROM next n WHERE r.request_id = $1::text AND n.status <> 'pending'
      )
      SELECT n.status, CASE WHEN $10::text IS NOT NULL THEN set_config($10::text || '_' || n.status, 'y', true) END AS written
      FROM next n`),
  };
}
