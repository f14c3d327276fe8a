import { randomUUID } from 'node:crypto';
import type { DispatchOutcome } from '@countersign/core';
import { AgentApi, type RunContext, type ToolCall } from './agent-api.ts';
import { scriptedModel } from './scripted-model.ts';
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
}

/** What happened to one tool call. */
export interface StepResult {
  callId: string;
  tool: string;
  /** executed, denied, not_approved, tool_failed, rejected, or the request status when no token was issued. */
  status: string;
  reason?: string | undefined;
  result?: unknown;
}

/**
 * A minimal agent loop over the Countersign API: for each model turn, record the
 * call, then run it through dispatch. Allowed calls run at once; calls that need
 * approval wait for a person, fetch the token and dispatch with it; denied calls
 * never run. It also replays the approved token once, to show it is single-use.
 */
export async function runScriptedAgent(options: AgentOptions): Promise<StepResult[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const api = new AgentApi(options.url, options.agentToken);
  const run: RunContext = {
    runId: options.runId ?? `run-${randomUUID()}`,
    sessionId: 'example-session',
    principal: options.principal ?? 'user:example',
  };
  log(`agent: run ${run.runId} for ${run.principal} against ${api.baseUrl}`);
  const results: StepResult[] = [];
  for (const turn of scriptedModel()) {
    log(`\nmodel: ${turn.say}`);
    log(`model: ${turn.toolCall.name}(${turn.toolCall.arguments})`);
    results.push(...(await handleCall(api, run, turn.toolCall, options, log)));
  }
  return results;
}

async function handleCall(api: AgentApi, run: RunContext, call: ToolCall, options: AgentOptions, log: (line: string) => void): Promise<StepResult[]> {
  const [proposed] = await api.propose(run, [call], `scripted-${call.id}`);
  if (proposed === undefined) throw new Error('the server returned no outcome for the call');
  const step = { callId: call.id, tool: call.name };
  switch (proposed.status) {
    case 'denied':
      log(`gate:  denied (${proposed.reason}); the tool does not run`);
      return [{ ...step, status: 'denied', reason: proposed.reason }];
    case 'rejected':
      log(`gate:  rejected (${proposed.reason}): ${proposed.message}`);
      return [{ ...step, status: 'rejected', reason: proposed.reason }];
    case 'allowed': {
      log('gate:  allowed by policy; dispatching');
      return [report(step, await api.dispatch(run, proposed), log)];
    }
    case 'approval_required': {
      log(`gate:  needs approval; open ${api.approvalPageUrl(proposed.requestId)}`);
      log(`agent: waiting for a decision (${options.wait ?? 'events'})...`);
      const decided = await waitForDecision(api, proposed.requestId, options.wait ?? 'events', {
        signal: options.signal,
        onFallback: (why) => log(`agent: ${why}; long-polling instead`),
      });
      log(`agent: request is ${decided.status}`);
      if (decided.status !== 'approved') {
        if (decided.edited !== undefined) log(`agent: the approver edited the call; its new request is ${decided.edited.requestId}`);
        return [{ ...step, status: decided.status }];
      }
      const token = await api.token(proposed.requestId);
      const first = report(step, await api.dispatch(run, proposed, token), log);
      // A replayed token must not run the call again.
      log('agent: replaying the same token once more');
      const replay = report({ ...step, callId: `${call.id} (replay)` }, await api.dispatch(run, proposed, token), log);
      return [first, replay];
    }
  }
}

function report(step: { callId: string; tool: string }, outcome: DispatchOutcome, log: (line: string) => void): StepResult {
  switch (outcome.status) {
    case 'executed':
      log(`tool:  ${step.tool} ran: ${JSON.stringify(outcome.result)}`);
      return { ...step, status: 'executed', result: outcome.result };
    case 'not_approved':
    case 'denied':
      log(`gate:  ${outcome.status} (${outcome.reason}): ${outcome.message}`);
      return { ...step, status: outcome.status, reason: outcome.reason };
    case 'tool_failed':
      log(`tool:  ${step.tool} failed: ${outcome.error}`);
      return { ...step, status: 'tool_failed', reason: outcome.error };
    case 'approval_required':
      log('gate:  still waiting for approval');
      return { ...step, status: 'approval_required' };
  }
}
