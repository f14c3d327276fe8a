/**
 * Lifecycle events the gate emits AFTER the store has committed what they describe.
 * They carry ids and statuses only, never arguments, results or tokens: a listener
 * (a webhook, another replica via the database) may sit outside the trust boundary
 * of what a call contains, and a reader that needs more reads the ledger.
 */

/** The call an event is about, as the ledger recorded it. */
export interface CallIds {
  runId: string;
  proposalId: string;
  callId: string;
  toolName: string;
}

/** Where a refusal happened. */
export type RejectionStage = 'propose' | 'edit' | 'authorize' | 'complete' | 'relay';

/** Trust status of a tool definition (see the tool catalogue's pins). */
export type DefinitionPinStatus = 'trusted' | 'changed_awaiting_review' | 'disabled';

export type GateEvent =
  /** A new call was recorded; `verdict` is policy's answer to it. */
  | ({ type: 'proposed'; at: number; verdict: 'allow' | 'approve' | 'deny'; editedFrom?: string | undefined } & CallIds)
  | ({ type: 'approval_requested'; at: number; requestId: string; expiresAt: number } & CallIds)
  /** One approver's decision; `status` is the request's status after it (pending while more approvals are needed). */
  | ({ type: 'decided'; at: number; requestId: string; approver: string; decision: 'approve' | 'deny'; status: string } & CallIds)
  /** Approve-with-edits closed this request; the edited call is its own proposal and request. */
  | ({ type: 'edited'; at: number; requestId: string; approver: string; editedProposalId: string; editedRequestId: string } & CallIds)
  | ({ type: 'revoked'; at: number; requestId: string; approver: string } & CallIds)
  /** An approver withdrew their own approval; the request is still pending. */
  | ({ type: 'withdrawn'; at: number; requestId: string; approver: string } & CallIds)
  | ({ type: 'token_minted'; at: number; requestId: string; agent: string } & CallIds)
  /** The approval (if any) was consumed: the call may run now, once. */
  | ({ type: 'authorized'; at: number; requestId?: string | undefined } & CallIds)
  | ({ type: 'completed'; at: number; status: 'succeeded' | 'failed' } & CallIds)
  /**
   * A call (or an edit, or an execution) was refused. Ids are present when they were
   * valid ids; a call refused for malformed ids carries none.
   */
  | {
      type: 'rejected';
      at: number;
      stage: RejectionStage;
      reason: string;
      runId?: string | undefined;
      proposalId?: string | undefined;
      callId?: string | undefined;
      toolName?: string | undefined;
      requestId?: string | undefined;
    }
  /** A tool's definition is not (or is again) the trusted one: the catalogue's hook. */
  | {
      type: 'definition_changed';
      at: number;
      toolName: string;
      definitionDigest: string | undefined;
      previousDigest?: string | undefined;
      pinStatus: DefinitionPinStatus;
      /** The re-approval request showing old and new definition, when one was opened. */
      requestId?: string | undefined;
    }
  /**
   * Not a lifecycle event: events may have been missed (a replica's connection to the
   * others was down). Waiters re-read the store for whatever they wait on.
   */
  | { type: 'resync'; at: number };

export type GateEventType = GateEvent['type'];

/** An event as delivered: `remote` when it happened on another replica. */
export type DeliveredEvent = GateEvent & { remote?: true | undefined };

export type GateEventListener = (event: DeliveredEvent) => void | Promise<void>;

/**
 * The gate's event bus. `publish` is called by the gate after a commit and must
 * return at once and never throw; `subscribe` returns the unsubscribe function.
 * Delivery is best effort and at most once per subscriber: anything that must not
 * miss a change (a waiter) also re-reads the store on an interval.
 */
export interface GateEvents {
  subscribe(listener: GateEventListener): () => void;
  publish(event: GateEvent): void;
}
