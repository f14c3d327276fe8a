import { randomUUID } from 'node:crypto';
import { type CountersignClient, createClient } from '@countersign/client';
import type { AuthorizeOutcome, ModelResponse } from '@countersign/core';
import { type LocalExecution, type LocalTool, localTools } from './local-tools.ts';
import { scriptedModel, type ToolCall } from './scripted-model.ts';
import { type WaitMode, waitForDecision } from './wait-for-decision.ts';

export interface AgentOptions {
  url: string;
  agentToken: string;
  /** How to wait for a person: the event stream (default) or long-polling. */
  wait?: WaitMode | undefined;
  runId?: string | undefined;
  principal?: string | undefined;
  log?: ((line: string) => void) | undefined;
  signal?: AbortSignal | undefined;
  /** Every local tool run is appended here. */
  executions?: LocalExecution[] | undefined;
}

/** What happened to one tool call. */
export interface StepResult {
  callId: string;
  tool: string;
  /** executed, denied, not_approved, tool_failed, rejected, or the request status when no token was issued. */
  status: string;
  reason?: string | undefined;
  result?: unknown;
  proposalId?: string | undefined;
}

type Run = Omit<ModelResponse, 'toolCalls' | 'responseRef'>;
interface Context {
  client: CountersignClient;
  run: Run;
  options: AgentOptions;
  tools: Record<string, LocalTool>;
  log: (line: string) => void;
}

/**
 * A minimal agent loop on `@countersign/client` that runs its own tools: for each model
 * turn, propose the call; allowed calls are authorized at once, calls that need approval
 * wait for a person and are authorized with the token; the agent then runs the tool on
 * the arguments the grant carries (the server's record, not its own copy) and reports
 * the result with `complete`. Denied calls never run. When the approver edits a call, the
 * agent runs the edited call (the server's record of it), not its own. It also replays the
 * approved token once, to show an approval is spent on first use.
 */
export async function runScriptedAgent(options: AgentOptions): Promise<StepResult[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const client = createClient({ baseUrl: options.url, token: options.agentToken });
  const run: Run = { runId: options.runId ?? `run-${randomUUID()}`, sessionId: 'example-session', principal: options.principal ?? 'user:example' };
  log(`agent: run ${run.runId} for ${run.principal} against ${client.baseUrl}`);
  const context: Context = { client, run, options, tools: localTools(), log };
  const results: StepResult[] = [];
  for (const turn of scriptedModel()) {
    log(`\nmodel: ${turn.say}`);
    log(`model: ${turn.toolCall.name}(${turn.toolCall.arguments})`);
    results.push(...(await handleCall(context, turn.toolCall)));
  }
  return results;
}

async function handleCall(context: Context, call: ToolCall): Promise<StepResult[]> {
  const { client, log } = context;
  const [proposed] = await client.propose({ ...context.run, responseRef: `scripted-${call.id}`, toolCalls: [call] });
  if (proposed === undefined) throw new Error('the server returned no outcome for the call');
  const step = { callId: call.id, tool: call.name };
  switch (proposed.status) {
    case 'denied':
      log(`gate:  denied (${proposed.reason}); the tool does not run`);
      return [{ ...step, status: 'denied', reason: proposed.reason }];
    case 'rejected':
      log(`gate:  rejected (${proposed.reason}): ${proposed.message}`);
      return [{ ...step, status: 'rejected', reason: proposed.reason }];
    case 'allowed':
      log('gate:  allowed by policy; authorizing');
      return [await runGranted(context, step, await client.authorize({ proposalId: proposed.proposalId, callId: call.id }))];
    case 'approval_required': {
      log(`gate:  needs approval; open ${client.approvalPageUrl(proposed.requestId)}`);
      const target = await followDecision(context, { requestId: proposed.requestId, proposalId: proposed.proposalId, callId: call.id });
      if (target.status !== 'approved') return [{ ...step, callId: target.callId, status: target.status }];
      const token = await client.token(target.requestId);
      if (!token.ok) return [{ ...step, status: token.status ?? token.reason }];
      const edited = { ...step, callId: target.callId };
      const request = { proposalId: target.proposalId, callId: target.callId, token: token.token };
      const first = await runGranted(context, edited, await client.authorize(request));
      // A replayed token must not authorize the call again.
      log('agent: replaying the same token once more');
      const replay = await runGranted(context, { ...edited, callId: `${target.callId} (replay)` }, await client.authorize(request));
      return [first, replay];
    }
  }
}

/** The call to run once a person has decided: the one proposed, or the approver's edit of it. */
interface Target {
  requestId: string;
  proposalId: string;
  callId: string;
  status: string;
}

/** An edit of an edit is followed too, a few times at most (each hop is a person's decision). */
const MAX_EDITS = 5;

/**
 * Waits for a decision; when the approver edited the call, follows the server's link to
 * the edited call (same run and session, a new call id) and waits for ITS request, so
 * the agent runs the arguments the approver approved. Only the server's answer names
 * the edited call: the agent never builds it from its own copy.
 */
async function followDecision(context: Context, first: Omit<Target, 'status'>): Promise<Target> {
  const { client, log, options } = context;
  let target = first;
  for (let hop = 0; ; hop++) {
    log(`agent: waiting for a decision on ${target.requestId} (${options.wait ?? 'events'})...`);
    const decided = await waitForDecision(client, options.agentToken, target.requestId, options.wait ?? 'events', {
      signal: options.signal,
      onFallback: (why) => log(`agent: ${why}; long-polling instead`),
    });
    if (!decided.ok) throw new Error(`cannot read request ${target.requestId}: ${decided.message}`);
    log(`agent: request is ${decided.status}`);
    if (decided.status !== 'edited') return { ...target, status: decided.status };
    if (decided.editedRequestId === undefined || decided.editedProposalId === undefined || hop >= MAX_EDITS) return { ...target, status: 'edited' };
    const status = await client.callStatus(decided.editedProposalId);
    if (!status.ok) throw new Error(`cannot read the edited call ${decided.editedProposalId}: ${status.message}`);
    target = { requestId: decided.editedRequestId, proposalId: decided.editedProposalId, callId: status.call.callId };
    log(`agent: the approver edited the call; running the edited call ${target.callId} (request ${target.requestId}) instead`);
  }
}

/** Runs the granted call with the local tool and records its result; a refusal runs nothing. */
async function runGranted(context: Context, step: { callId: string; tool: string }, outcome: AuthorizeOutcome): Promise<StepResult> {
  const { client, log } = context;
  if (outcome.status !== 'authorized') {
    if (outcome.status === 'approval_required') {
      log('gate:  still waiting for approval');
      return { ...step, status: 'approval_required' };
    }
    log(`gate:  ${outcome.status} (${outcome.reason}): ${outcome.message}`);
    return { ...step, status: outcome.status, reason: outcome.reason };
  }
  const { grant } = outcome;
  const tool = context.tools[grant.toolName];
  // The arguments the approver saw, from the grant: never the agent's own copy of the call.
  const args = JSON.parse(grant.canonicalArgs) as Record<string, unknown>;
  let completion: { status: 'succeeded'; result: unknown } | { status: 'failed'; error: string };
  if (tool === undefined) {
    completion = { status: 'failed', error: `the agent has no tool named ${grant.toolName}` };
  } else {
    context.options.executions?.push({ tool: grant.toolName, proposalId: grant.proposalId, args });
    try {
      completion = { status: 'succeeded', result: await tool(args) };
    } catch (error) {
      completion = { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
  }
  const recorded = await client.complete(grant, completion);
  if (!recorded.ok) log(`gate:  the result was not recorded (${recorded.reason}): ${recorded.message}`);
  if (completion.status === 'failed') {
    log(`tool:  ${grant.toolName} failed: ${completion.error}`);
    return { ...step, status: 'tool_failed', reason: completion.error, proposalId: grant.proposalId };
  }
  log(`tool:  ${grant.toolName} ran in the agent: ${JSON.stringify(completion.result)}`);
  if (recorded.ok) log(`gate:  result recorded (sha256 ${recorded.resultDigest.slice(0, 16)}…)`);
  return { ...step, status: 'executed', result: completion.result, proposalId: grant.proposalId };
}
