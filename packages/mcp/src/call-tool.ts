import { hash, randomUUID } from 'node:crypto';
import { canonicalizeArguments } from '@countersign/core/canonical';
import type { Grant, ProposeOutcome } from '@countersign/core/gate';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { GatewayError, type ToolCatalogue } from './catalogue.ts';
import type { ClientRelay } from './client-relay.ts';
import type { ToolNaming } from './names.ts';
import { type ApprovalChannel, type ApprovalSettings, awaitApproval } from './await-approval.ts';
import { type RecordedSettings, recordedTarget } from './recorded-call.ts';
import { approvalLink, refusalResult } from './refusal.ts';
import type { Upstream } from './upstream.ts';
import { taskFromMeta } from './task-meta.ts';

/** Who a call is made for, and the gateway's settings for calls. */
export interface CallContext extends ApprovalSettings {
  catalogue: ToolCatalogue;
  naming: ToolNaming;
  upstreams: ReadonlyMap<string, Upstream>;
  runId: string;
  sessionId: string;
  principal: string;
  /** Strict mode: list the tool's upstream again before each call (else only when `catalogue.beforeCall` says so). */
  relistBeforeCall: boolean;
  /** Direct or recorded mode, and the recorded run (checks 3 and 4). */
  recorded: RecordedSettings;
  /** Where what an upstream asks during a call goes (client-relay.ts). */
  relay: Pick<ClientRelay, 'during'>;
}

/**
 * A `tools/call` in direct mode: the call is itself the proposal. Policy and approvals
 * decide through the gate; what runs upstream is the LEDGER's call (tool and canonical
 * arguments from the grant), and its raw result is recorded with `complete`.
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
  const listing = parsed === undefined ? undefined : ctx.relistBeforeCall ? ctx.catalogue.relist(parsed.upstream) : ctx.catalogue.beforeCall(parsed.upstream);
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
  if (target !== undefined) return callRecorded(ctx, toolName, args, target, channel);
  const named = taskFromMeta(meta, toolName);
  if (!named.ok) return named.refusal;
  const task = { task: named.task, taskId: named.taskId };
  const proposed = await proposeOnce(ctx, toolName, args, stableCallId(ctx, toolName, args), task);
  if (proposed.status === 'allowed') {
    const first = await ctx.port.authorize({ proposalId: proposed.proposalId });
    if (first.status === 'authorized') return forward(ctx, first.grant, channel);
    if (first.status !== 'not_approved' || first.reason !== 'already_consumed') return refuseAuthorize(first, toolName);
    // The same allowed call again (reading a file twice): a new call, not a replay of the spent one.
    const again = await proposeOnce(ctx, toolName, args, `${stableCallId(ctx, toolName, args)}-${randomUUID()}`, task);
    if (again.status === 'approval_required') return approveThenRun(ctx, again, toolName, channel);
    if (again.status !== 'allowed') return refusePropose(ctx, again, toolName);
    const second = await ctx.port.authorize({ proposalId: again.proposalId });
    return second.status === 'authorized' ? forward(ctx, second.grant, channel) : refuseAuthorize(second, toolName);
  }
  if (proposed.status === 'approval_required') return approveThenRun(ctx, proposed, toolName, channel);
  return refusePropose(ctx, proposed, toolName);
}

/**
 * Checks 3 and 4: the call must be a recorded, undispatched model call of the run (the
 * client's call id selects it). What runs is that recorded call, with the ledger's arguments.
 */
async function callRecorded(
  ctx: CallContext,
  toolName: string,
  args: Record<string, unknown>,
  target: { runId: string; callId?: string | undefined },
  channel: ApprovalChannel,
): Promise<CallToolResult> {
  const outcome = await ctx.recorded.authorizeRecorded({ runId: target.runId, callId: target.callId, toolName, arguments: args, principal: ctx.principal });
  if (outcome.status === 'authorized') return forward(ctx, outcome.grant, channel);
  if (outcome.status === 'approval_required') return approveThenRun(ctx, outcome, toolName, channel);
  if (outcome.status === 'not_approved' && outcome.reason === 'missing' && outcome.proposalId !== undefined) {
    // Approved while no token was presented (the gateway holds none yet): fetch it for that request and authorize.
    const status = await ctx.port.callStatus(outcome.proposalId);
    const request = status.ok ? status.call.request : undefined;
    if (request !== undefined) return approveThenRun(ctx, { proposalId: outcome.proposalId, requestId: request.requestId }, toolName, channel);
  }
  return refuseAuthorize(outcome, toolName);
}

/** Waits for the decision (see await-approval.ts) and runs the approved call. */
async function approveThenRun(ctx: CallContext, proposed: { proposalId: string; requestId: string }, toolName: string, channel: ApprovalChannel): Promise<CallToolResult> {
  const approved = await awaitApproval(ctx, proposed, toolName, channel);
  if (!approved.ok) return approved.result;
  const result = await forward(ctx, approved.grant, channel);
  if (approved.edited === undefined) return result;
  // The client asked for one call and another ran: it is told which, beside the result (recorded as the upstream sent it).
  const { grant } = approved;
  const edited = { originalProposalId: approved.edited.originalProposalId, proposalId: grant.proposalId, toolName: grant.toolName, arguments: JSON.parse(grant.canonicalArgs) as unknown };
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  const countersign = (meta.countersign ?? {}) as Record<string, unknown>;
  return { ...result, _meta: { ...meta, countersign: { ...countersign, edited } } };
}

/**
 * Runs the ledger's call upstream and records its raw result. The client's cancellation
 * and progress token go with it; what the upstream asks meanwhile goes back to that client.
 */
async function forward(ctx: CallContext, grant: Grant, channel: ApprovalChannel): Promise<CallToolResult> {
  const target = ctx.naming.parse(grant.toolName);
  const upstream = target === undefined ? undefined : ctx.upstreams.get(target.upstream);
  if (target === undefined || upstream === undefined) {
    await ctx.port.complete(grant, { status: 'failed', error: 'no upstream serves this tool' });
    return refusalResult({ reason: 'unknown_tool', message: 'no upstream serves this tool', toolName: grant.toolName, proposalId: grant.proposalId });
  }
  let result: CallToolResult;
  try {
    // The ledger's canonical arguments, as text: what runs is exactly what was authorized.
    const options = { signal: channel.signal, onprogress: channel.relayProgress };
    result = await ctx.relay.during(upstream.name, channel.site, () => upstream.callTool(target.tool, grant.canonicalArgs, options));
  } catch (error) {
    await ctx.port.complete(grant, { status: 'failed', error: errorText(error) });
    return refusalResult({ reason: 'upstream_failed', message: errorText(error), toolName: grant.toolName, proposalId: grant.proposalId });
  }
  // Recording can fail (store outage) after the call ran: the result still goes back, the call reads `dispatched`.
  await ctx.port.complete(grant, { status: 'succeeded', result });
  return result;
}

async function proposeOnce(
  ctx: CallContext,
  toolName: string,
  args: Record<string, unknown>,
  callId: string,
  task: { task?: string | undefined; taskId?: string | undefined },
): Promise<ProposeOutcome> {
  const [outcome] = await ctx.port.propose({
    runId: ctx.runId,
    sessionId: ctx.sessionId,
    principal: ctx.principal,
    toolCalls: [{ id: callId, name: toolName, arguments: args }],
    // The task the runtime named (see task-meta.ts), for the approval service's intent stage.
    ...(task.task === undefined ? {} : { task: task.task }),
    ...(task.taskId === undefined ? {} : { taskId: task.taskId }),
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

function refuseAuthorize(outcome: { status: string; reason?: string; message?: string; proposalId?: string | undefined }, toolName: string): CallToolResult {
  return refusalResult({ reason: outcome.reason ?? outcome.status, message: outcome.message ?? outcome.status, toolName, proposalId: outcome.proposalId });
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
