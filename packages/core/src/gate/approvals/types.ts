import type { DefinitionReviewView, DefinitionView } from '../definitions/definition-view.ts';
import type { ApprovalRequest, ApprovalStatus, Proposal } from '../../ledger/types.ts';
import type { InputSchemaProblem } from '../definitions/input-schema.ts';
import type { PasskeyVerifier } from '../../passkey/types.ts';

/** Why a read of the approval store failed: nothing there (for this reader), or the store is down. */
export type ReadFailure = { ok: false; reason: 'not_found' | 'store_unavailable'; message: string };

export interface DecisionInput {
  requestId: string;
  decision: 'approve' | 'deny';
  reason?: string | undefined;
  /**
   * Approve-with-edits: the arguments the approver wants instead. They become a new
   * proposal approved as its own call; the original is closed and linked to it.
   */
  editedArguments?: unknown;
  /**
   * Under a passkey rule: the WebAuthn assertion (`PasskeyAssertion`, base64url fields)
   * over SHA-256 of the canonical decision claims (`passkeyDecisionClaims`). Untrusted:
   * read strictly and verified against the claims rebuilt from the ledger.
   */
  passkeyAssertion?: unknown;
}

/** What a decision may need beyond its input: how to check a passkey assertion (the server's WebAuthn verifier). */
export interface DecideOptions {
  passkeys?: PasskeyVerifier | undefined;
}

export type DecisionFailure =
  | 'not_found'
  | 'not_eligible'
  | 'expired'
  | 'already_decided'
  | 'duplicate_approver'
  | 'invalid_arguments'
  /** The input is not a decision: `decision` other than 'approve'/'deny', a non-string id or reason. */
  | 'invalid_decision'
  /** Approve-with-edits: policy denies the edited call, so the edit is refused (the original stays pending). */
  | 'edit_denied_by_policy'
  /** The request's rule requires a passkey and the decision carries no assertion. */
  | 'passkey_required'
  /** The assertion does not verify for this call, decision and approver (see checkPasskeyRule). */
  | 'passkey_invalid'
  | 'store_unavailable'
  /**
   * The store failed while recording the decision and could not be read back: it may
   * have taken effect (a reply lost after COMMIT). Not a refusal; read the request
   * before deciding again (see `settleLostWrite`).
   */
  | 'outcome_unknown';

export type DecisionOutcome =
  | {
      ok: true;
      request: ApprovalRequest;
      /** Present for approve-with-edits: the request for the edited call. */
      editedRequest?: ApprovalRequest | undefined;
      editedProposal?: Proposal | undefined;
      /**
       * Present (false) only when the decision took effect in the ledger but its audit
       * record(s) could not be appended: the decision stands (it is not reported as
       * failed), and the gap is the caller's to report (see `appendAfterEffect`).
       */
      auditRecorded?: false;
    }
  | {
      ok: false;
      reason: DecisionFailure;
      message: string;
      /** For `invalid_arguments` from the tool's input schema: what is wrong, by JSON Pointer. */
      problems?: InputSchemaProblem[] | undefined;
    };

/**
 * The tool definition an approver is shown beside a call: the one this gate runs,
 * when its digest is the one recorded with the call. `changed` means the tool's
 * definition is no longer the pinned one (the call cannot dispatch); `unknown_tool`
 * that no such tool is registered; `none` that the tool has no definition.
 */
export type { DefinitionReviewView, DefinitionView } from '../definitions/definition-view.ts';

/** Where an approve-with-edits sent the call: the edited proposal, and the request to wait on for it. */
export interface EditedCall {
  proposalId: string;
  /**
   * Always set for edits recorded by `recordEdit` (one atomic step); undefined only for an
   * edit left half-made by a version that wrote the parts separately.
   */
  requestId: string | undefined;
  callId: string;
  argsDigest: string;
}

/** A request with the call it is about, exactly as recorded. */
export interface RequestView {
  request: ApprovalRequest;
  proposal: Proposal;
  /** The status at the gate's `now`: a request past its deadline reads `expired`. */
  status: ApprovalStatus;
  definition: DefinitionView;
  /** Present when the request is a definition review: the trusted and the new definition. */
  review?: DefinitionReviewView | undefined;
  /** Set when an approver edited the call: where it went. */
  edited?: EditedCall | undefined;
}

/** What a decision reads before it is written: the request, its call and the request's status at the gate's `now`. */
export type DecisionView = Pick<RequestView, 'request' | 'proposal' | 'status'>;

export type ViewResult = { ok: true; view: RequestView } | ReadFailure;

export type ListResult = { ok: true; views: RequestView[] } | { ok: false; reason: 'store_unavailable'; message: string };

export type RevokeOutcome =
  | {
      ok: true;
      request: ApprovalRequest;
      /** Present (false) when the revocation took effect but its audit record could not be appended. */
      auditRecorded?: false;
    }
  | {
      ok: false;
      /**
       * `not_revocable`: not approved, or already used (consumed), expired or revoked.
       * `outcome_unknown`: the store failed mid-write and could not be read back (see DecisionFailure).
       */
      reason: 'not_found' | 'not_eligible' | 'not_revocable' | 'store_unavailable' | 'outcome_unknown';
      message: string;
    };

export type WithdrawOutcome =
  | {
      ok: true;
      /** The request after the withdrawal: pending, without this approver's approval. */
      request: ApprovalRequest;
      /** Present (false) when the withdrawal took effect but its audit record could not be appended. */
      auditRecorded?: false;
    }
  | {
      ok: false;
      /**
       * `not_eligible`: the approver may not decide this request; `no_approval`: they hold no
       * approval on it (never gave one, or already withdrew it); `already_decided`: the request
       * is no longer pending (approved, consumed, denied…), so there is nothing to withdraw
       * from (an approved, unused one can still be revoked); `expired`: past its deadline.
       */
      reason: 'not_found' | 'not_eligible' | 'no_approval' | 'already_decided' | 'expired' | 'store_unavailable' | 'outcome_unknown';
      message: string;
    };
