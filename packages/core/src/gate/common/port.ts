import type { CallStatus, CompleteOutcome, Completion, Grant } from '../execute/grant.ts';
import type { DispatchOutcome, ProposeOutcome } from './outcomes.ts';
import type { RefusalReport, RefusalReportOutcome } from '../relay/refusal-report.ts';
import type { ProviderOutputOutcome, ProviderOutputReport } from '../relay/provider-output.ts';
import type { CheckRelayedRequest, RelayCheckOutcome } from '../relay/types.ts';

/** One model response with all the tool calls it contained. */
export interface ModelResponse {
  runId: string;
  sessionId: string;
  /** On whose behalf the agent acts. */
  principal: string;
  /**
   * The model response id (e.g. `chatcmpl-...`, `resp_...`), kept with every proposal of
   * the response and in its `proposal` audit record.
   */
  responseRef?: string | undefined;
  /**
   * `context`: what the agent says about this call, for the approver (untrusted, bounded).
   * `executedBy: 'provider'`: a hosted tool the provider already ran; recorded, never authorized.
   */
  toolCalls: ReadonlyArray<{ id: string; name: string; arguments: unknown; context?: string | undefined; executedBy?: 'provider' | undefined }>;
  /**
   * The user's current task, one sentence extracted agent- or proxy-side (never the raw
   * conversation), for the gate's optional intent stage; or `taskId`, the id of a stored
   * task summary. At most one of the two.
   */
  task?: string | undefined;
  taskId?: string | undefined;
  /** Offers of the assistant that the user only accepted ("ok sure"), from the extractor: passed to the matcher with `task`. */
  offered?: readonly string[] | undefined;
  /**
   * Propose-and-authorize: every call policy allows outright is recorded already
   * authorized, in the same write (one durable commit instead of two), and its `allowed`
   * outcome carries the grant to run. Calls that need approval, are denied or were
   * already recorded are answered exactly as without it.
   */
  authorizeAllowed?: boolean | undefined;
}

/**
 * What the runtime asks to run. `proposalId` (from the propose outcome) selects the
 * call; the rest are cross-checks that must equal the ledger's call when given
 * (`toolName`/`arguments`: CASA checks 3 and 4).
 */
export interface AuthorizeRequest {
  proposalId: string;
  token?: string | undefined;
  runId?: string | undefined;
  callId?: string | undefined;
  sessionId?: string | undefined;
  principal?: string | undefined;
  toolName?: string | undefined;
  arguments?: unknown;
}

/** Authorize's outcome: a grant to run, or exactly what dispatch would have refused with. */
export type AuthorizeOutcome =
  | { status: 'authorized'; grant: Grant }
  | Extract<DispatchOutcome, { status: 'approval_required' | 'not_approved' | 'denied' }>;

/** Where an approval request stands after waiting for a decision. */
export type WaitOutcome = WaitSettled | WaitEdited | { ok: false; reason: 'not_found' | 'store_unavailable'; message: string };

/** The request's effective status: `pending` only when the wait timed out or was aborted. */
export type WaitSettled = {
  ok: true;
  requestId: string;
  status: 'pending' | 'approved' | 'denied' | 'revoked' | 'consumed' | 'expired';
};

/**
 * The approver edited the call: what may run is the edited call, under its own request.
 * Narrowing by `status` gives the ids, so no caller has to check for a missing one; an
 * `edited` request whose edited call cannot be named is answered as `not_found` instead.
 */
export type WaitEdited = {
  ok: true;
  requestId: string;
  status: 'edited';
  editedRequestId: string;
  editedProposalId: string;
  /** The edited call's tool-call id (same run and session, a new call id); absent only from a server too old to send it. */
  editedCallId?: string | undefined;
};

export type TokenResult =
  | { ok: true; token: string; requestId: string; expiresAt: number }
  | { ok: false; reason: 'not_found' | 'not_approved' | 'store_unavailable'; status?: string | undefined; message: string };

export type CallStatusResult = { ok: true; call: CallStatus } | { ok: false; reason: 'not_found' | 'store_unavailable'; message: string };

/**
 * The one surface every integration is written against, so it runs the same against
 * an in-process gate (embedded store) and a shared approval service over HTTP
 * (`@countersign/client`). Implementations never throw for a refusal: every method
 * answers with a typed outcome. A port is bound to one agent identity.
 *
 * The flow: `propose` the model's calls; for `approval_required`, `waitForDecision`
 * then `token`; `authorize` (consumes the approval: at most once); run the tool with
 * `grant.canonicalArgs`; `complete` with the result. `callStatus` tells "ran, result
 * unknown" (`dispatched`) from "never ran" (`proposed`) after a crash. Before the
 * results go back to the model, `checkRelayed` checks they are the recorded ones.
 */
export interface GatePort {
  propose(response: ModelResponse): Promise<ProposeOutcome[]>;
  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome>;
  complete(grant: Grant, completion: Completion): Promise<CompleteOutcome>;
  waitForDecision(requestId: string, options?: { timeoutMs?: number | undefined; signal?: AbortSignal | undefined }): Promise<WaitOutcome>;
  token(requestId: string): Promise<TokenResult>;
  callStatus(proposalId: string): Promise<CallStatusResult>;
  /**
   * CASA check 5: the tool results the runtime is about to relay to the model, each
   * compared with the result recorded for its call of `runId` (see `checkRelayed`).
   * Refuses (`relay_refused`, with every failure) unless all of them are faithful.
   */
  checkRelayed(request: CheckRelayedRequest): Promise<RelayCheckOutcome>;
  /**
   * Audits a refusal the integration made itself, which never reached the gate: a
   * message of a shape it cannot check (`unknown_shape`). Only the shape is reported,
   * never the content; an agent writes only into its own runs' trail.
   */
  reportRefusal(report: RefusalReport): Promise<RefusalReportOutcome>;
  /**
   * Records the digest of a hosted tool's output as the provider produced it, for a call
   * recorded as the provider's (`executedBy: 'provider'`): the output later sent back to the
   * model is relay-checked against it (see `recordProviderOutput`).
   */
  recordProviderOutput(report: ProviderOutputReport): Promise<ProviderOutputOutcome>;
}
