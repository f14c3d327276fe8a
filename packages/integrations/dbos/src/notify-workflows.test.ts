import { MemoryGateEvents } from '@countersign/core/events';
import { makeGateFixture } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { countersignWorkflow } from './countersign-workflow.ts';
import { CountersignDbosError } from './errors.ts';
import { notifyWorkflows, type WorkflowSender } from './notify-workflows.ts';
import { decisionTopic } from './topic.ts';

type Sent = Parameters<WorkflowSender>;

function recordingSender(fail = false): { sent: Sent[]; send: WorkflowSender } {
  const sent: Sent[] = [];
  return {
    sent,
    send: async (...args) => {
      sent.push(args);
      if (fail) throw new Error('no such workflow');
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('notifyWorkflows (the approval service wakes the waiting workflow)', () => {
  it('a decision sends the request id, and only the id, to the workflow named by the run id, on the request topic', async () => {
    const f = makeGateFixture();
    const { sent, send } = recordingSender();
    notifyWorkflows(f.gate.events, send);
    const call = f.call();
    const proposed = await f.gate.propose(call);
    if (proposed.status !== 'approval_required') throw new Error(proposed.status);
    await settle();
    expect(sent).toEqual([]); // proposing wakes nobody
    await f.gate.approvals.decide({ id: 'fiona', roles: ['finance'] }, { requestId: proposed.requestId, decision: 'approve' });
    await settle();
    expect(sent).toEqual([[call.runId, { type: 'countersign_decision', requestId: proposed.requestId }, decisionTopic(proposed.requestId), expect.any(String)]]);
  });

  it('sends for denials and revocations, not for a replica’s remote copy; a failed send is reported, never thrown', async () => {
    const events = new MemoryGateEvents();
    const { sent, send } = recordingSender(true);
    const errors: unknown[] = [];
    const stop = notifyWorkflows(events, send, { onError: (error) => errors.push(error) });
    const ids = { runId: 'run-1', proposalId: 'p1', callId: 'c1', toolName: 'transfer' };
    events.publish({ type: 'decided', at: 1, requestId: 'r1', approver: 'a', decision: 'deny', status: 'denied', ...ids });
    events.publish({ type: 'revoked', at: 2, requestId: 'r2', approver: 'a', ...ids });
    events.publish({ type: 'token_minted', at: 3, requestId: 'r1', agent: 'x', ...ids });
    events.publish({ type: 'decided', at: 4, requestId: 'r3', approver: 'a', decision: 'approve', status: 'approved', ...ids, remote: true } as never);
    await settle();
    expect(sent.map((s) => s[1].requestId)).toEqual(['r1', 'r2']);
    expect(new Set(sent.map((s) => s[3])).size).toBe(2); // distinct idempotency keys per change
    expect(errors).toHaveLength(2);
    stop();
    events.publish({ type: 'revoked', at: 5, requestId: 'r4', approver: 'a', ...ids });
    await settle();
    expect(sent).toHaveLength(2);
  });
});

describe('countersignWorkflow outside a workflow', () => {
  it('refuses with a typed error instead of recording a step nowhere', async () => {
    const f = makeGateFixture();
    const cs = countersignWorkflow({ port: f.gate.port({ id: 'a' }) });
    const response = { sessionId: 's', principal: 'user:1', toolCalls: [] };
    expect(() => cs.propose(response)).toThrow(CountersignDbosError);
    expect(() => cs.propose(response)).toThrow(expect.objectContaining({ code: 'not_in_workflow' }));
  });

  it('refuses a poll interval that would spin', () => {
    const f = makeGateFixture();
    expect(() => countersignWorkflow({ port: f.gate.port({ id: 'a' }), pollIntervalMs: 10 })).toThrow(RangeError);
    expect(() => countersignWorkflow({ port: f.gate.port({ id: 'a' }), pollIntervalMs: Number.NaN })).toThrow(RangeError);
  });
});
