import { randomUUID } from 'node:crypto';
import type { GatePort, Grant, WaitOutcome } from '@countersign/core/gate';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { RelaySite } from './client-relay.ts';
import { approvalLink, refusalResult } from './refusal.ts';

/**
 * What the MCP client that sent a `tools/call` offers while the call waits for a person:
 * each member is present only when the client can take it.
 */
export interface ApprovalChannel {
  /** `notifications/progress` on the call's progress token (only when the client sent one). */
  progress?: ((progress: number, message: string) => Promise<void>) | undefined;
  /**
   * A URL-mode elicitation (2025-11-25, only when the client declared `elicitation.url`):
   * the client shows the approval page's link to its user and answers whether they opened it.
   */
  elicitUrl?: ((request: { elicitationId: string; url: string; message: string }, timeoutMs: number) => Promise<'accept' | 'decline' | 'cancel'>) | undefined;
  /** `notifications/elicitation/complete`: the decision the elicitation asked for is in. */
  completeElicitation?: ((elicitationId: string) => Promise<void>) | undefined;
  /** Aborted when the client cancels the call or goes away: the wait ends at once, and so does the upstream call. */
  signal?: AbortSignal | undefined;
  /** The upstream's progress on the call, relayed on the client's token (only when the client sent one). */
  relayProgress?: ((progress: Progress) => void) | undefined;
  /** The client the call came from: what the upstream asks during the call (sampling, elicitation, roots) goes there. */
  site?: RelaySite | undefined;
}

/** The gateway's settings for a call that needs approval. */
export interface ApprovalSettings {
  port: GatePort;
  /** How long a call waits for the decision before answering "approval required" (no elicitation). */
  approvalWaitMs: number;
  /** How long a call waits once the client's user opened the approval page (URL elicitation). */
  elicitationWaitMs: number;
  /** How often a waiting call sends a progress notification. */
  progressIntervalMs: number;
  /** The longest wait (within `approvalWaitMs`) for a client that sent no progress token. Default `NO_PROGRESS_WAIT_MS`. */
  noProgressWaitMs?: number | undefined;
  approvalUrl?: string | undefined;
}

/** `edited`: an approver changed the call; the grant is for the edited call, whose original is `originalProposalId`. */
/** The longest wait for a client that sent no progress token: well inside the MCP SDKs' default request timeout (60 s). */
export const NO_PROGRESS_WAIT_MS = 45_000;

export type ApprovalOutcome = { ok: true; grant: Grant; edited?: { originalProposalId: string } | undefined } | { ok: false; result: CallToolResult };

/**
 * A call the gate says needs approval: offers the client the best its protocol allows,
 * waits for the decision, and authorizes the approved call (the ledger's, or the call an
 * approver edited it into). The caller forwards the grant; nothing here runs a tool.
 *
 * - A client that declared `elicitation.url`, when the approval page is known: a URL
 *   elicitation pointing at the page, then a wait of up to `elicitationWaitMs`, then
 *   `notifications/elicitation/complete`. Declined or cancelled: "approval required" at once.
 * - Otherwise: a wait of up to `approvalWaitMs`, with progress notifications when the
 *   client sent a progress token, then the typed "approval required" refusal with the
 *   link. The request stays open: the identical retry finds it and runs once approved.
 */
export async function awaitApproval(
  settings: ApprovalSettings,
  proposed: { proposalId: string; requestId: string },
  toolName: string,
  channel: ApprovalChannel = {},
): Promise<ApprovalOutcome> {
  const ids = { toolName, proposalId: proposed.proposalId, requestId: proposed.requestId };
  const link = approvalLink(settings.approvalUrl, proposed.requestId);
  const refuse = (reason: string, message: string, approvalUrl?: string): ApprovalOutcome => ({ ok: false, result: refusalResult({ ...ids, reason, message, approvalUrl }) });
  const pending = (message = 'this call waits for a person to approve it') => refuse('approval_required', message, link);

  let waitMs = settings.approvalWaitMs;
  let elicitationId: string | undefined;
  // A retry of a call decided meanwhile asks the client nothing: only a pending request is elicited.
  const decided = channel.elicitUrl !== undefined && link !== undefined ? await settings.port.waitForDecision(proposed.requestId, { timeoutMs: 0 }) : undefined;
  if (channel.elicitUrl !== undefined && link !== undefined && decided?.ok === true && decided.status === 'pending') {
    const id = `countersign-${randomUUID()}`;
    const message = `Countersign: the call of ${toolName} needs a person's approval. Open the approval page to decide it.`;
    let action: 'accept' | 'decline' | 'cancel' | 'failed';
    try {
      action = await channel.elicitUrl({ elicitationId: id, url: link, message }, settings.elicitationWaitMs);
    } catch {
      action = 'failed'; // no answer in time, or the client refused the request: wait as for any client
    }
    if (action === 'decline' || action === 'cancel') return pending(`the user did not open the approval page (${action}); the request stays open`);
    if (action === 'accept') {
      elicitationId = id;
      waitMs = Math.max(waitMs, settings.elicitationWaitMs);
    }
  }

  // A client with no progress token has nothing to reset its request timeout (the SDK's is 60 s): it gets the link before that, never a timeout.
  if (channel.progress === undefined && elicitationId === undefined) waitMs = Math.min(waitMs, settings.noProgressWaitMs ?? NO_PROGRESS_WAIT_MS);
  const waited = await waitWithProgress(settings, proposed.requestId, waitMs, toolName, link, channel);
  if (elicitationId !== undefined && waited.ok && waited.status !== 'pending') {
    await channel.completeElicitation?.(elicitationId).catch(() => undefined);
  }
  if (!waited.ok) return refuse(waited.reason, waited.message);
  if (waited.status === 'pending') return pending();
  if (waited.status === 'consumed') return refuse('already_consumed', 'this approved call already ran; an approval is used once');
  if (waited.status !== 'approved' && waited.status !== 'edited') return refuse(`approval_${waited.status}`, `the approval request is ${waited.status}`);
  // An approver who edited the call approved the edited call: that one runs, with its own request.
  const requestId = waited.status === 'edited' ? waited.editedRequestId : proposed.requestId;
  const proposalId = waited.status === 'edited' ? waited.editedProposalId : proposed.proposalId;
  if (requestId === undefined || proposalId === undefined) return refuse('not_approved', 'the edited call was not found');
  const token = await settings.port.token(requestId);
  if (!token.ok) return refuse(token.reason === 'not_approved' ? `approval_${token.status ?? 'pending'}` : token.reason, token.message);
  const authorized = await settings.port.authorize({ proposalId, token: token.token });
  if (authorized.status === 'authorized') {
    return { ok: true, grant: authorized.grant, ...(waited.status === 'edited' ? { edited: { originalProposalId: proposed.proposalId } } : {}) };
  }
  const reason = authorized.status === 'approval_required' ? 'approval_required' : authorized.reason;
  const message = authorized.status === 'approval_required' ? 'the approval was not accepted' : authorized.message;
  return { ok: false, result: refusalResult({ toolName, reason, message, proposalId: authorized.proposalId }) };
}

/**
 * Waits for the decision in slices of `progressIntervalMs`, telling the client after each
 * slice that the call is still waiting (its SDK may reset its request timeout on progress).
 */
async function waitWithProgress(settings: ApprovalSettings, requestId: string, waitMs: number, toolName: string, link: string | undefined, channel: ApprovalChannel): Promise<WaitOutcome> {
  const deadline = performance.now() + waitMs;
  const slice = channel.progress === undefined ? waitMs : Math.max(1, settings.progressIntervalMs);
  for (let step = 1; ; step++) {
    const remaining = Math.max(0, deadline - performance.now());
    const waited = await settings.port.waitForDecision(requestId, { timeoutMs: Math.min(slice, remaining), signal: channel.signal });
    if (!waited.ok || waited.status !== 'pending' || remaining <= slice || channel.signal?.aborted === true) return waited;
    const where = link === undefined ? '' : ` at ${link}`;
    await channel.progress?.(step, `waiting for a person to approve ${toolName}${where}`).catch(() => undefined);
  }
}
