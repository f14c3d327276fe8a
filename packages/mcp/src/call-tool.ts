import { hash, randomUUID } from 'node:crypto';
import { canonicalizeArguments } from '@countersign/core/canonical';
import type { AuthorizeOutcome, Grant, ProposeOutcome } from '@countersign/core/gate';
import { runGranted, settleUnknownOutcome, unreachable } from '@countersign/core/integration';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GatewayError, type UpstreamTools } from './upstream-tools.ts';
import type { ClientRelay } from './client-relay.ts';
import type { ToolNaming } from './names.ts';
import { type ApprovalChannel, type ApprovalSettings, guardWithApproval, type WaitedStep } from './await-approval.ts';
import { type RecordedSettings, recordedTarget } from './recorded-call.ts';
import { approvalLink, refusalResult } from './refusal.ts';
import type { Upstream } from './upstream.ts';
import { MessageTooLargeError } from './message-size.ts';
import { taskFromMeta } from './task-meta.ts';
import type { PendingRecordings } from './pending-recordings.ts';

/** Who a call is made for, and the gateway's settings for calls. */
export interface CallContext extends ApprovalSettings {
  upstreamTools: UpstreamTools;
  naming: ToolNaming;
  upstreams: ReadonlyMap<string, Upstream>;
  runId: string;
  sessionId: string;
  principal: string;
  /** Strict mode: list the tool's upstream again before each call (else only when `upstreamTools.beforeCall` says so). */
  relistBeforeCall: boolean;
  /** Direct or recorded mode, and the recorded run (checks 3 and 4). */
  recorded: RecordedSettings;
  /** Where what an upstream asks during a call goes (client-relay.ts). */
  relay: Pick<ClientRelay, 'during'>;
  /** Direct calls' results answered before their recording settled; the gateway's close waits for them. */
  recordings: PendingRecordings;
}

/**
 * When a call's result is recorded (`complete`) relative to the client's answer. A recorded
 * model call's result is checked on the model's next request (the LLM proxy's relay check,
 * CASA check 5), which may follow the answer at once: recorded first. A direct call's
 * result is read by no relay check (the gateway proposed the call itself, in its own run);
 * it is answered first and recorded right after, off the client's wait.
 */
type ResultRecording = 'before_answer' | 'after_answer';

/**
 * A `tools/call` in direct mode: the call is itself the proposal, proposed with
 * `authorizeAllowed`, so a call policy allows comes back with its grant from the one write
 * that records it (propose-and-authorize), runs upstream and is completed: two durable
 * commits. Anything else runs on core's one guarded-call machine (`guardCall`,
 * `runGranted`): policy and approvals decide
 * through the gate, an approver's edit is followed as every adapter follows it, what runs
 * upstream is the LEDGER's call (tool and canonical arguments from the grant), and its raw
 * result is recorded with `complete`. This file keeps only the MCP translation.
 */
export async function callTool(
  ctx: CallContext,
  toolName: string,
  args: Record<string, unknown>,
  meta?: unknown,
  headerRun?: string,
  channel: ApprovalChannel = {},
): Promise<CallToolResult> {
  const target = recordedTarget(ctx.recorded, toolName, meta, headerRun);
  if (target !== undefined && !target.ok) return target.refusal;
  const parsed = ctx.naming.parse(toolName);
  // Check 1: the call is proposed under the definition the upstream serves now (see `relistBeforeCall`).
  const listing = parsed === undefined ? undefined : ctx.relistBeforeCall ? ctx.upstreamTools.relist(parsed.upstream) : ctx.upstreamTools.beforeCall(parsed.upstream);
  if (listing !== undefined) {
    try {
      await listing;
    } catch (error) {
      // The approval service refusing the listing (another agent's tool name) is not an upstream outage.
      const reason = error instanceof GatewayError && error.code === 'registration_refused' ? 'registration_refused' : 'upstream_unavailable';
      return refusalResult({ reason, message: errorText(error), toolName });
    }
  }
  // An upstream that is down runs nothing: refused before anything is proposed or an approval spent.
  const upstream = parsed === undefined ? undefined : ctx.upstreams.get(parsed.upstream);
  if (upstream !== undefined && !upstream.available) {
    return refusalResult({ reason: 'upstream_unavailable', message: `upstream ${upstream.name} is unavailable; the gateway reconnects with backoff`, toolName });
  }
  if (target !== undefined) return recordingRefusal(ctx, target, await callRecorded(ctx, toolName, args, target, channel));
  const named = taskFromMeta(meta, toolName);
  if (!named.ok) return named.refusal;
  const task = { task: named.task, taskId: named.taskId, offered: named.offered };
  const context = { runId: ctx.runId, sessionId: ctx.sessionId, principal: ctx.principal };
  const callId = stableCallId(ctx, toolName, args);
  const proposed = await proposeOnce(ctx, toolName, args, callId, task);
  if (proposed.status === 'denied' || proposed.status === 'rejected') return refusePropose(ctx, proposed, toolName);
  // Allowed and authorized in the proposal's own write: run it (two commits per call, not three).
  if (proposed.status === 'allowed' && proposed.grant !== undefined) return answer(ctx, granted(proposed.grant), toolName, proposed.proposalId, channel, 'after_answer');
  const step = await guardWithApproval(ctx, { context, callId, toolName, arguments: args, recorded: proposed }, channel);
  if (proposed.status !== 'allowed' || step.kind !== 'refused' || step.refusal.reason !== 'already_consumed') return answer(ctx, step, toolName, proposed.proposalId, channel, 'after_answer');
  // The same allowed call again (reading a file twice): a new call, not a replay of the spent one.
  const freshId = `${callId}-${randomUUID()}`;
  const again = await proposeOnce(ctx, toolName, args, freshId, task);
  if (again.status === 'denied' || again.status === 'rejected') return refusePropose(ctx, again, toolName);
  if (again.status === 'allowed' && again.grant !== undefined) return answer(ctx, granted(again.grant), toolName, again.proposalId, channel, 'after_answer');
  const retried = await guardWithApproval(ctx, { context, callId: freshId, toolName, arguments: args, recorded: again }, channel);
  return answer(ctx, retried, toolName, again.proposalId, channel, 'after_answer');
}

/** The machine's step for a call propose already authorized (`authorizeAllowed`): run the grant, unedited. */
function granted(grant: Grant): WaitedStep {
  return { kind: 'run', grant, edited: false };
}

/**
 * Checks 3 and 4: the call must be a recorded, undispatched model call of the run (the
 * client's call id selects it; `authorizeMatchingCall` finds it and cross-checks tool and
 * arguments). What runs is that recorded call, with the ledger's arguments; a call that
 * needs approval goes on on core's machine like a direct one.
 */
async function callRecorded(
  ctx: CallContext,
  toolName: string,
  args: Record<string, unknown>,
  target: { runId: string; callId?: string | undefined; sessionId?: string | undefined },
  channel: ApprovalChannel,
): Promise<CallToolResult> {
  let outcome: AuthorizeOutcome;
  try {
    const session = target.sessionId === undefined ? {} : { sessionId: target.sessionId };
    outcome = await ctx.recorded.authorizeMatchingCall({ runId: target.runId, callId: target.callId, toolName, arguments: args, principal: ctx.principal, ...session });
  } catch (error) {
    return refusalResult({ reason: 'store_unavailable', message: unreachable(error), toolName });
  }
  if (outcome.status === 'authorized') return answer(ctx, { kind: 'run', grant: outcome.grant, edited: false }, toolName, outcome.grant.proposalId, channel);
  if (outcome.status === 'not_approved' && outcome.reason === 'outcome_unknown' && outcome.proposalId !== undefined) {
    return answer(ctx, await settleUnknownOutcome(ctx.port, outcome.proposalId, outcome.message), toolName, outcome.proposalId, channel);
  }
  // Waiting for an approver, approved while no token was presented (the gateway holds none yet), or replaced by an
  // approver's edit: on the machine, which follows the edit as every adapter does (the edited call runs, with its own approval).
  if (outcome.status === 'approval_required') return guardRecorded(ctx, outcome.proposalId, toolName, args, target.sessionId, channel);
  if ((outcome.reason === 'missing' || outcome.reason === 'approval_edited') && outcome.proposalId !== undefined) {
    return guardRecorded(ctx, outcome.proposalId, toolName, args, target.sessionId, channel);
  }
  return refusalResult({ reason: outcome.reason, message: outcome.message, toolName, proposalId: outcome.proposalId });
}

/**
 * A refusal the gateway gave for a recorded model call (the client named its call id) is
 * recorded for that call at the approval service (`reportRefusal`, `call_refused`) before the
 * client gets it: a runtime that relays it back to the model through the LLM proxy is then
 * recognised by the ledger as Countersign's own refusal, not a made-up result (the gate
 * records it only for a call that never ran). A report that fails changes nothing here:
 * that relayed refusal is then refused as `not_executed`, deny by default.
 */
async function recordingRefusal(ctx: CallContext, target: { runId: string; callId?: string | undefined; sessionId?: string | undefined }, result: CallToolResult): Promise<CallToolResult> {
  const refusal = (result._meta as { countersign?: { reason?: unknown } } | undefined)?.countersign;
  const text = result.content.length === 1 && result.content[0]?.type === 'text' ? result.content[0].text : undefined;
  if (result.isError !== true || typeof refusal?.reason !== 'string' || target.callId === undefined || text === undefined) return result;
  const session = target.sessionId === undefined ? {} : { sessionId: target.sessionId };
  await ctx.port.reportRefusal({ runId: target.runId, callId: target.callId, principal: ctx.principal, ...session, reason: 'call_refused', detail: text }).catch(() => undefined);
  return result;
}

/** A recorded call that needs its approval: its own run, call id and request, read from the ledger. */
async function guardRecorded(
  ctx: CallContext,
  proposalId: string,
  toolName: string,
  args: Record<string, unknown>,
  sessionId: string | undefined,
  channel: ApprovalChannel,
): Promise<CallToolResult> {
  const status = await ctx.port.callStatus(proposalId).catch((error: unknown) => ({ ok: false as const, message: unreachable(error) }));
  const call = status.ok ? status.call : undefined;
  if (call?.request === undefined) return refusalResult({ reason: 'store_unavailable', message: status.ok ? 'the call has no approval request' : status.message, toolName, proposalId });
  const recorded = { status: 'approval_required' as const, proposalId, requestId: call.request.requestId };
  // Run, call id, principal, tool and arguments are cross-checked; the agent's session too when the gateway knows it (`_meta` or configured).
  const context = { runId: call.runId, principal: ctx.principal, ...(sessionId === undefined ? {} : { sessionId }) };
  const input = { context, callId: call.callId, toolName, arguments: args, recorded };
  return answer(ctx, await guardWithApproval(ctx, input, channel), toolName, proposalId, channel);
}

/**
 * The machine's step as MCP shows it: a grant runs upstream (an approver's edit named in
 * `_meta`), a wait is "approval required" with the page's link, a refusal is a typed
 * `isError` result, and `outcome_unknown` its own refusal (the approval may be spent:
 * read the call's status, do not retry).
 */
async function answer(
  ctx: CallContext,
  step: WaitedStep,
  toolName: string,
  proposalId: string,
  channel: ApprovalChannel,
  recording: ResultRecording = 'before_answer',
): Promise<CallToolResult> {
  if (step.kind === 'refused' || step.kind === 'unknown') {
    const { reason, message, proposalId: refusedId } = step.refusal;
    return refusalResult({ reason, message, toolName, proposalId: refusedId });
  }
  if (step.kind === 'wait') {
    const { requestId } = step;
    const message = step.declined === undefined ? 'this call waits for a person to approve it' : `the user did not open the approval page (${step.declined}); the request stays open`;
    return refusalResult({ reason: 'approval_required', message, toolName, proposalId: step.proposalId, requestId, approvalUrl: approvalLink(ctx.approvalUrl, requestId) });
  }
  const result = await forward(ctx, step.grant, channel, recording);
  if (!step.edited) return result;
  // The client asked for one call and another ran: it is told which, beside the result (recorded as the upstream sent it).
  const { grant } = step;
  const edited = { originalProposalId: proposalId, proposalId: grant.proposalId, toolName: grant.toolName, arguments: JSON.parse(grant.canonicalArgs) as unknown };
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  const countersign = (meta.countersign ?? {}) as Record<string, unknown>;
  return { ...result, _meta: { ...meta, countersign: { ...countersign, edited } } };
}

/** No upstream serves the granted tool (it went away since the call was proposed): nothing ran. */
class NoUpstream extends Error {}

/**
 * Runs the ledger's call upstream under the machine (`runGranted`: its raw result or its
 * failure recorded with `complete`). The client's cancellation and progress token go with
 * it; what the upstream asks meanwhile goes back to that client. A completion the store
 * could not record leaves the result standing (the call reads `dispatched`), whether it was
 * recorded before the answer or after it (`recording`).
 */
async function forward(ctx: CallContext, grant: Grant, channel: ApprovalChannel, recording: ResultRecording): Promise<CallToolResult> {
  const run = async (): Promise<CallToolResult> => {
    const target = ctx.naming.parse(grant.toolName);
    const upstream = target === undefined ? undefined : ctx.upstreams.get(target.upstream);
    if (target === undefined || upstream === undefined) throw new NoUpstream('no upstream serves this tool');
    // The ledger's canonical arguments, as text: what runs is exactly what was authorized.
    const options = { signal: channel.signal, onprogress: channel.relayProgress };
    return ctx.relay.during(upstream.name, channel.site, () => upstream.callTool(target.tool, grant.canonicalArgs, options));
  };
  try {
    const after = recording === 'after_answer' ? { recordAfterAnswer: (record: () => Promise<void>) => ctx.recordings.add(record) } : {};
    return await runGranted(ctx.port, grant, run, after);
  } catch (error) {
    const reason = error instanceof NoUpstream ? 'unknown_tool' : error instanceof MessageTooLargeError ? 'result_too_large' : 'upstream_failed';
    return refusalResult({ reason, message: errorText(error), toolName: grant.toolName, proposalId: grant.proposalId });
  }
}

async function proposeOnce(
  ctx: CallContext,
  toolName: string,
  args: Record<string, unknown>,
  callId: string,
  task: { task?: string | undefined; taskId?: string | undefined; offered?: readonly string[] | undefined },
): Promise<ProposeOutcome> {
  const [outcome] = await ctx.port.propose({
    runId: ctx.runId,
    sessionId: ctx.sessionId,
    principal: ctx.principal,
    toolCalls: [{ id: callId, name: toolName, arguments: args }],
    // An allowed call comes back authorized, recorded consumed in the proposal's write.
    authorizeAllowed: true,
    // The task the runtime named (see task-meta.ts), for the approval service's intent stage.
    ...(task.task === undefined ? {} : { task: task.task }),
    ...(task.taskId === undefined ? {} : { taskId: task.taskId }),
    ...(task.offered === undefined ? {} : { offered: task.offered }),
  });
  return outcome ?? { status: 'rejected', reason: 'invalid_call', message: 'the gate answered nothing' };
}

function refusePropose(ctx: CallContext, outcome: Exclude<ProposeOutcome, { status: 'allowed' | 'approval_required' }>, toolName: string): CallToolResult {
  const requestId = outcome.status === 'rejected' ? outcome.reviewRequestId : undefined;
  return refusalResult({
    reason: outcome.reason,
    message: outcome.message,
    toolName,
    proposalId: outcome.status === 'denied' ? outcome.proposalId : undefined,
    requestId,
    approvalUrl: approvalLink(ctx.approvalUrl, requestId),
  });
}

/**
 * The same call (session, tool, canonical arguments) always gets the same call id, so an
 * identical retry finds its pending approval request, and a retry after it ran finds the
 * spent call (`already_consumed`) instead of asking for a second approval.
 */
function stableCallId(ctx: CallContext, toolName: string, args: Record<string, unknown>): string {
  let argsDigest: string;
  try {
    argsDigest = canonicalizeArguments(args).digest;
  } catch {
    return `mcp-${randomUUID()}`; // propose refuses these arguments anyway, with the precise reason
  }
  return `mcp-${hash('sha256', `${ctx.sessionId}\u0000${toolName}\u0000${argsDigest}`).slice(0, 40)}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
