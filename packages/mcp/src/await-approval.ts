import { randomUUID } from 'node:crypto';
import type { GatePort } from '@countersign/core/gate';
import { type GuardedCallInput, type GuardedStep, guardCall } from '@countersign/core/integration';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { RelaySite } from './client-relay.ts';
import { approvalLink } from './refusal.ts';

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

/** The longest wait for a client that sent no progress token: well inside the MCP SDKs' default request timeout (60 s). */
export const NO_PROGRESS_WAIT_MS = 45_000;

/** The machine's step once the gateway stopped waiting; `wait` also says whether the client's user declined to open the page. */
export type WaitedStep = Exclude<GuardedStep, { kind: 'wait' }> | (Extract<GuardedStep, { kind: 'wait' }> & { declined?: 'decline' | 'cancel' | undefined });

/**
 * A call on core's guarded-call machine (`guardCall`: approval followed through edits,
 * authorize, consume once), with what MCP adds while it waits for a person. Nothing here
 * runs a tool; the caller runs a `run` step's grant.
 *
 * - A call already decided (or allowed) is answered at once, without asking the client anything.
 * - A client that declared `elicitation.url`, when the approval page is known: a URL
 *   elicitation pointing at the page, then a wait of up to `elicitationWaitMs`, then
 *   `notifications/elicitation/complete`. Declined or cancelled: `wait` at once.
 * - Otherwise: a wait of up to `approvalWaitMs` (within `noProgressWaitMs` for a client
 *   that sent no progress token), with progress notifications when it sent one.
 *
 * A `wait` answer leaves the request open: the identical retry finds it and runs once approved.
 */
export async function guardWithApproval(settings: ApprovalSettings, call: GuardedCallInput, channel: ApprovalChannel = {}): Promise<WaitedStep> {
  const first = await guardCall(settings.port, call, { waitMs: 0, signal: channel.signal });
  if (first.kind !== 'wait') return first;
  const link = approvalLink(settings.approvalUrl, first.requestId);
  let waitMs = settings.approvalWaitMs;
  let elicitationId: string | undefined;
  if (channel.elicitUrl !== undefined && link !== undefined) {
    const id = `countersign-${randomUUID()}`;
    const message = `Countersign: the call of ${call.toolName} needs a person's approval. Open the approval page to decide it.`;
    let action: 'accept' | 'decline' | 'cancel' | 'failed';
    try {
      action = await channel.elicitUrl({ elicitationId: id, url: link, message }, settings.elicitationWaitMs);
    } catch {
      action = 'failed'; // no answer in time, or the client refused the request: wait as for any client
    }
    if (action === 'decline' || action === 'cancel') return { ...first, declined: action };
    if (action === 'accept') {
      elicitationId = id;
      waitMs = Math.max(waitMs, settings.elicitationWaitMs);
    }
  }
  // A client with no progress token has nothing to reset its request timeout (the SDK's is 60 s): it gets the link before that, never a timeout.
  if (channel.progress === undefined && elicitationId === undefined) waitMs = Math.min(waitMs, settings.noProgressWaitMs ?? NO_PROGRESS_WAIT_MS);
  const step = await waitWithProgress(settings, call, waitMs, link, channel);
  if (elicitationId !== undefined && step.kind !== 'wait') await channel.completeElicitation?.(elicitationId).catch(() => undefined);
  return step;
}

/**
 * Asks the machine again in slices of `progressIntervalMs` (each a wait for the decision),
 * telling the client after each slice that the call is still waiting (its SDK may reset its
 * request timeout on progress).
 */
async function waitWithProgress(settings: ApprovalSettings, call: GuardedCallInput, waitMs: number, link: string | undefined, channel: ApprovalChannel): Promise<GuardedStep> {
  const deadline = performance.now() + waitMs;
  const slice = channel.progress === undefined ? waitMs : Math.max(1, settings.progressIntervalMs);
  for (let round = 1; ; round++) {
    const remaining = Math.max(0, deadline - performance.now());
    const step = await guardCall(settings.port, call, { waitMs: Math.min(slice, remaining), signal: channel.signal });
    if (step.kind !== 'wait' || remaining <= slice || channel.signal?.aborted === true) return step;
    const where = link === undefined ? '' : ` at ${link}`;
    await channel.progress?.(round, `waiting for a person to approve ${call.toolName}${where}`).catch(() => undefined);
  }
}
