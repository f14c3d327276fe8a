/** Every column of proposals, listed: a prepared statement must not return `*` (see prepared-statement.ts). */
export const PROPOSAL_COLUMNS = `proposal_id, run_id, session_id, principal, call_id, tool_name, definition_digest, canonical_args,
  args_digest, model_response_ref, parent_proposal_id, created_at, state, dispatched_at, result_status, result_digest, result_at, agent,
  result_projections, context, registered_by, executed_by`;

/** Every column of approval_requests, listed for the same reason. */
export const REQUEST_COLUMNS = `r.request_id, r.proposal_id, r.created_at, r.expires_at, r.required_approvals, r.eligible, r.rule_id, r.rule_description,
  r.status, r.token_id, r.approved_at, r.consumed_at, r.passkey`;

/**
 * The state of a proposal the statement inserts: $17 is `RecordProposalOptions.consumedAt`
 * (NULL: `proposed`), so an allowed call is recorded consumed by the same INSERT, in the
 * same round trip, and is never readable as `proposed`.
 */
export const CONSUMED_STATE = `CASE WHEN $17::bigint IS NULL THEN 'proposed' ELSE 'dispatched' END`;
