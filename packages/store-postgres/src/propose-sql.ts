import { CONSUMED_STATE, PROPOSAL_COLUMNS, REQUEST_COLUMNS } from './sql-columns.ts';
import { preparedStatement } from './prepared-statement.ts';

/** The columns a proposal insert writes ($1…$16 from `proposalParams`, then its state and dispatched_at). */
const INSERT_COLUMNS = `proposal_id, run_id, session_id, principal, call_id, tool_name, definition_digest,
  canonical_args, args_digest, model_response_ref, parent_proposal_id, created_at, agent, context, registered_by, executed_by, state, dispatched_at`;

/**
 * A RETURNING column that sets the transaction-local setting named by `param` to 'y'. In
 * an INSERT's RETURNING it runs for the inserted row only, so the setting says "this
 * statement recorded the call": the chaining insert sent right behind it, in the same
 * round trip, appends the call's records only then (`chainInsertIfStatement`).
 */
const SET_WRITTEN = (param: string) => `set_config(${param}::text, 'y', true) AS written`;

/**
 * The proposal statements of `recordProposal` with its records known before the write
 * (`AuditIfWritten`): each sets a flag when it inserts the call, so the insert, the
 * chain's lock, the conditional audit insert and COMMIT leave together. Same decisions
 * as their unflagged twins in ledger-sql.ts (documented there), one more parameter each:
 * the flag's name.
 */
export function proposeSql(s: string) {
  return {
    /** `insertOwnedProposal` ($1…$17), flag $18. */
    insertOwnedFlagged: preparedStatement(`
      INSERT INTO ${s}.proposals (${INSERT_COLUMNS})
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, ${CONSUMED_STATE}, $17::bigint)
      ON CONFLICT DO NOTHING
      RETURNING ${PROPOSAL_COLUMNS}, ${SET_WRITTEN('$18')}`),
    /** `insertOwnedProposalWithRequest` ($1…$24; never consumed), flag $25. */
    insertOwnedWithRequestFlagged: preparedStatement(`
      WITH p AS (
        INSERT INTO ${s}.proposals (${INSERT_COLUMNS})
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 'proposed', NULL)
        ON CONFLICT DO NOTHING
        RETURNING ${PROPOSAL_COLUMNS}, ${SET_WRITTEN('$25')}
      ), r AS (
        INSERT INTO ${s}.approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals,
          eligible, rule_id, rule_description, passkey, status)
        SELECT $17::text, p.proposal_id, $18::bigint, $19::bigint, $20::integer, $21::jsonb, $22::text, $23::text, $24::text, 'pending' FROM p
        RETURNING ${REQUEST_COLUMNS.replaceAll('r.', '')}, '[]'::json AS decisions
      )
      SELECT p.*, (SELECT row_to_json(r) FROM r) AS request_json FROM p`),
    /** `claimAndInsertProposal` ($1…$17), flag $18. */
    claimAndInsertFlagged: preparedStatement(claimAndInsertText(s, `${PROPOSAL_COLUMNS}, ${SET_WRITTEN('$18')}`)),
    /**
     * `insertRequest` ($1…$9, `requestParams`) only if the proposal statement sent right
     * before it set the flag $10 (it recorded the call): a call that was already there opens
     * nothing, as when the request was inserted after the proposal's answer. A taken request
     * id still fails the statement (and so the transaction), as `insertRequest` does.
     */
    insertRequestIfWritten: preparedStatement(`
      INSERT INTO ${s}.approval_requests (request_id, proposal_id, created_at, expires_at, required_approvals,
        eligible, rule_id, rule_description, passkey, status)
      SELECT $1::text, $2::text, $3::bigint, $4::bigint, $5::integer, $6::jsonb, $7::text, $8::text, $9::text, 'pending'
      WHERE current_setting($10::text, true) = 'y'
      RETURNING ${REQUEST_COLUMNS.replaceAll('r.', '')}, '[]'::json AS decisions`),
  };
}

export type ProposeSql = ReturnType<typeof proposeSql>;

/**
 * The text of `claimAndInsertProposal` (ledger-sql.ts documents its decisions), returning
 * `returning` from the inserted row: the unflagged statement and its flagged twin differ
 * only there.
 */
export function claimAndInsertText(s: string, returning: string): string {
  return `
      WITH claim AS (
        INSERT INTO ${s}.runs (run_id, agent, created_at) VALUES ($2::text, $13::text, $12::bigint)
        ON CONFLICT (run_id) DO NOTHING
        RETURNING agent
      ), owner AS MATERIALIZED (
        SELECT agent FROM claim
        UNION ALL
        SELECT agent FROM ${s}.runs WHERE run_id = $2::text
      ), inserted AS (
        INSERT INTO ${s}.proposals (${INSERT_COLUMNS})
        SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text,
          $11::text, $12::bigint, $13::text, $14::text, $15::text, $16::text, ${CONSUMED_STATE}, $17::bigint
        WHERE (SELECT agent FROM owner LIMIT 1) = $13::text
        ON CONFLICT DO NOTHING
        RETURNING ${returning}
      )
      SELECT i.*, (SELECT agent FROM owner LIMIT 1) AS run_owner
      FROM (VALUES (1)) AS one (x)
      LEFT JOIN inserted i ON true`;
}
