import type { Grant } from '../execute/grant.ts';
import type { TokenRejection } from '../../token/verify.ts';

/**
 * Why a call did not run although policy allows the tool: the evidence was missing
 * or did not match (invariant 6). Each is distinct so callers inside the trust
 * boundary and the audit log can tell attacks apart.
 */
export type NotApprovedReason =
  /** Also used when a cross-check field of the dispatch request (run, call, session, principal) differs from the selected call. */
  | TokenRejection
  /**
   * No call with this proposal id was recorded from a model response by this agent
   * (CASA check 2). Another agent's call reads exactly like a call that does not exist.
   */
  | 'unknown_call'
  /** The approval (or, for allowed tools, the call) was already used. */
  | 'already_consumed'
  | 'approval_pending'
  | 'approval_revoked'
  /** An approver replaced the call with an edited one (approve-with-edits): run the edited call instead. */
  | 'approval_edited'
  /** The token's approval request is not this call's request, or its id was not the one issued. */
  | 'token_mismatch'
  /** The arguments offered at dispatch are not valid canonical JSON. */
  | 'invalid_arguments'
  /** The ledger's stored arguments no longer hash to the stored digest. */
  | 'ledger_integrity'
  | 'store_unavailable'
  /**
   * The store failed while consuming the approval and may have committed it (a reply
   * lost after COMMIT). Not a refusal: no grant was handed out and the call is never
   * authorized twice; read the call's status (`callStatus`) to learn whether it is spent.
   */
  | 'outcome_unknown';

/** Why policy or an approver refused the call outright. */
export type DeniedReason =
  | 'policy_deny'
  | 'unclassified_tool'
  | 'policy_error'
  | 'unknown_verdict'
  | 'unknown_tool'
  | 'approval_denied'
  /** The dispatching agent may no longer act for the call's principal. */
  | 'principal_not_allowed'
  /** The intent stage found that the current task does not call for this tool (or could not confirm it, failing closed). */
  | 'intent_mismatch'
  /** The provider ran this hosted tool itself (`executedBy: 'provider'`): it never runs again through Countersign. */
  | 'provider_executed';

export type DispatchOutcome =
  | {
      status: 'executed';
      proposalId: string;
      callId: string;
      toolName: string;
      result: unknown;
      /** SHA-256 (hex) of the canonical result, as recorded in the ledger and the audit log. */
      resultDigest: string;
      /** Present (false) only when the store failed while recording the result of a call that ran. */
      resultRecorded?: false;
    }
  | { status: 'tool_failed'; proposalId: string; callId: string; toolName: string; error: string; resultRecorded?: false }
  | { status: 'approval_required'; proposalId: string; requestId: string; expiresAt: number }
  | { status: 'not_approved'; reason: NotApprovedReason; message: string; proposalId?: string | undefined }
  | { status: 'denied'; reason: DeniedReason; message: string; proposalId?: string | undefined };

export type ProposeOutcome =
  | {
      status: 'allowed';
      proposalId: string;
      callId: string;
      argsDigest: string;
      /**
       * Propose-and-authorize (`authorizeAllowed`): the call was recorded already authorized,
       * in the same write; run exactly `grant.canonicalArgs`, then `complete`. Absent when it
       * was not asked for, or the call was already recorded (then `authorize` it as usual).
       */
      grant?: Grant | undefined;
    }
  | {
      status: 'approval_required';
      proposalId: string;
      callId: string;
      argsDigest: string;
      requestId: string;
      expiresAt: number;
      /**
       * Set when the call was proposed again after an approver replaced it with an edited
       * call (its request is `edited`): the call to run instead, from the ledger.
       */
      edited?: { proposalId: string; requestId: string; callId: string } | undefined;
    }
  | { status: 'denied'; reason: DeniedReason; message: string; proposalId?: string | undefined }
  | {
      status: 'rejected';
      reason:
        | 'invalid_arguments'
        | 'call_conflict'
        | 'invalid_call'
        | 'store_unavailable'
        /** The agent may not act for the call's principal. */
        | 'principal_not_allowed'
        /** The run belongs to the agent that recorded its first call, and that is another agent. */
        | 'run_owned_by_other_agent'
        /** The tool's definition is not the trusted one (changed, unpinned or disabled): nothing was recorded. */
        | 'definition_mismatch'
        /**
         * The store failed while recording the call and could not be read back: the call
         * may be recorded (a reply lost after COMMIT). Not a refusal: propose the same call
         * again, which answers as recorded.
         */
        | 'outcome_unknown';
      message: string;
      /** For `definition_mismatch`: the review request a person must decide first, when one is open. */
      reviewRequestId?: string | undefined;
    };
