import { linkedPair } from '@countersign/server/testing';
import { type GatePort, InProcessGatePort } from '@countersign/core/gate';
import { FINANCE, makeGateFixture, type GateFixtureOptions } from '@countersign/core/testing';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createCountersignActivities } from './activities.ts';
import { countersignActivityInterceptors, type ToolInterceptorOptions } from './tool-interceptor.ts';
import type { ProposeOutcome, ToolEnvelope } from './workflow/contract.ts';

export const WORKFLOW_ID = 'wf-order-42';

/** How the worker reaches the gate: in process, or `@countersign/client` over the server app (linkedPair). */
export type Wiring = 'in-process' | 'client';
export const WIRINGS: readonly Wiring[] = ['in-process', 'client'];

/** A real gate (memory store unless given one) with its port, and tool activities that record what they ran. */
export function temporalFixture(options: GateFixtureOptions = {}, interceptorOptions: ToolInterceptorOptions = {}, wiring: Wiring = 'in-process') {
  const fixture = makeGateFixture(options);
  const port: GatePort = wiring === 'in-process' ? new InProcessGatePort(fixture.gate) : linkedPair({ gate: fixture.gate, client: { retryDelayMs: 5 } }).client;
  const ran: Array<{ tool: string; args: unknown }> = [];
  const tools = {
    transfer: async (args: unknown) => {
      ran.push({ tool: 'transfer', args });
      return { transferred: (args as { amount: number }).amount };
    },
    delete_repo: async (args: unknown) => {
      ran.push({ tool: 'delete_repo', args });
      return 'deleted';
    },
  };

  /** Runs activity `activityType` as Temporal would on a worker with the Countersign interceptor. */
  function runActivity(activityType: string, fn: (...args: never[]) => Promise<unknown>, args: unknown[], workflowId = WORKFLOW_ID, attempt = 1) {
    const env = new MockActivityEnvironment(
      { activityType, attempt, workflowExecution: { workflowId, runId: `temporal-run-${attempt}` } },
      // Refusals are the point of these tests: keep the worker's failure logs out of the output.
      { interceptors: [countersignActivityInterceptors(port, interceptorOptions)], logger: new DefaultLogger('ERROR') },
    );
    return env.run(fn as (...a: unknown[]) => Promise<unknown>, ...args);
  }

  async function propose(toolCalls: Array<{ id: string; name: string; arguments: unknown }>, workflowId = WORKFLOW_ID): Promise<ProposeOutcome[]> {
    const activities = createCountersignActivities(port);
    return (await runActivity('countersign.propose', activities['countersign.propose'] as never, [{ sessionId: 's-1', principal: 'user:42', toolCalls }], workflowId)) as ProposeOutcome[];
  }

  async function approve(requestId: string) {
    const decided = await fixture.gate.approvals.decide(FINANCE, { requestId, decision: 'approve' });
    if (!decided.ok) throw new Error(decided.reason);
  }

  const envelope = (outcome: { proposalId: string; requestId?: string; callId?: string }, args: unknown): ToolEnvelope => ({
    countersign: { v: 1, proposalId: outcome.proposalId, requestId: outcome.requestId, callId: outcome.callId ?? '', sessionId: 's-1', principal: 'user:42' },
    arguments: args,
  });

  return { ...fixture, port, ran, tools, runActivity, propose, approve, envelope };
}

/** The ApplicationFailure type an activity run was refused with. */
export async function failureOf(run: Promise<unknown>): Promise<{ type: string; message: string; details: unknown[] }> {
  try {
    await run;
  } catch (error) {
    const failure = error as { type?: string; message: string; details?: unknown[]; nonRetryable?: boolean };
    if (failure.nonRetryable !== true) throw new Error(`expected a non-retryable failure, got: ${failure.message}`);
    return { type: failure.type ?? '', message: failure.message, details: failure.details ?? [] };
  }
  throw new Error('expected the activity to be refused');
}
