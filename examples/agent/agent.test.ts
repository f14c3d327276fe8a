import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@countersign/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Test-only helper from the server package: spawns the real `countersign serve`.
import { type ServeProcess, spawnServe } from '../../packages/cli/src/serve/testing/spawn-serve.ts';
import { ApproverApi } from './approver-api.ts';
import type { LocalExecution } from './local-tools.ts';
import { runScriptedAgent, type StepResult } from './scripted-agent.ts';

const AGENT = `agent-${randomBytes(12).toString('hex')}`;
const APPROVER = `approver-${randomBytes(12).toString('hex')}`;
const cwd = mkdtempSync(join(tmpdir(), 'countersign-example-agent-'));
let server: ServeProcess;

beforeAll(async () => {
  server = await spawnServe(['--poll-interval-ms', '50'], {
    cwd,
    env: { COUNTERSIGN_AGENT_TOKEN: AGENT, COUNTERSIGN_APPROVER_TOKEN: APPROVER },
  });
});
afterAll(async () => {
  expect(await server.stop('SIGTERM')).toBe(0);
  rmSync(cwd, { recursive: true, force: true });
});

/** Plays the person: waits for the large transfer to show up, checks it is the exact call, decides. */
async function approverDecides(decision: 'approve' | 'deny' | 'edit', runId: string): Promise<void> {
  const approver = new ApproverApi(server.url, APPROVER);
  for (;;) {
    const request = (await approver.pending()).find((view) => view.call.runId === runId);
    if (request !== undefined) {
      expect(request.call.toolName).toBe('transfer');
      expect(request.call.canonicalArguments).toBe('{"amount":2500,"memo":"urgent","to":"new-supplier"}');
      if (decision === 'edit') await approver.edit(request.requestId, { amount: 250, memo: 'urgent', to: 'new-supplier' }, 'a tenth is enough');
      else await approver.decide(request.requestId, decision, 'checked by the test');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Tool runs inside the server process: none, the agent runs its own tools. */
const serverExecutionsOf = (runId: string) => server.events().filter((e) => e.event === 'executed' && e.runId === runId);
const ranLocally = (executions: LocalExecution[]) => executions.map((e) => [e.tool, e.args]);

/** The server's record of each call the agent ran: the result it reported, once. */
async function expectRecorded(steps: StepResult[]): Promise<void> {
  const client = createClient({ baseUrl: server.url, token: AGENT });
  for (const step of steps.filter((s) => s.status === 'executed')) {
    const status = await client.callStatus(step.proposalId!);
    expect(status).toMatchObject({ ok: true, call: { state: 'succeeded', toolName: step.tool } });
  }
}
const summary = (steps: StepResult[]) => steps.map((s) => [s.callId, s.status, s.reason ?? null]);

describe('the scripted agent against countersign serve', () => {
  for (const wait of ['events', 'poll'] as const) {
    it(`approved (waiting via ${wait}): small and large transfers run exactly once, the delete never`, async () => {
      const runId = `run-approve-${wait}`;
      const lines: string[] = [];
      const executions: LocalExecution[] = [];
      const [steps] = await Promise.all([
        runScriptedAgent({ url: server.url, agentToken: AGENT, runId, wait, executions, log: (line) => lines.push(line) }),
        approverDecides('approve', runId),
      ]);
      expect(summary(steps)).toEqual([
        ['call_small_transfer', 'executed', null],
        ['call_large_transfer', 'executed', null],
        ['call_large_transfer (replay)', 'not_approved', 'already_consumed'],
        ['call_delete_repo', 'denied', 'policy_deny'],
      ]);
      expect(steps[1]!.result).toEqual({ demo: true, transferred: 2500, to: 'new-supplier' });
      expect(lines.join('\n')).toContain(`${server.url}/requests/`);
      expect(lines.join('\n')).not.toContain('long-polling instead');
      // The agent ran each approved call once, on the arguments the approver saw; the server ran nothing.
      expect(ranLocally(executions)).toEqual([
        ['transfer', { amount: 25, memo: 'invoice 1042', to: 'alice' }],
        ['transfer', { amount: 2500, memo: 'urgent', to: 'new-supplier' }],
      ]);
      await expectRecorded(steps);
      expect(serverExecutionsOf(runId)).toEqual([]);
    });
  }

  it('denied: the large transfer never runs', async () => {
    const runId = 'run-deny';
    const executions: LocalExecution[] = [];
    const [steps] = await Promise.all([
      runScriptedAgent({ url: server.url, agentToken: AGENT, runId, executions, log: () => {} }),
      approverDecides('deny', runId),
    ]);
    expect(summary(steps)).toEqual([
      ['call_small_transfer', 'executed', null],
      ['call_large_transfer', 'denied', null],
      ['call_delete_repo', 'denied', 'policy_deny'],
    ]);
    expect(ranLocally(executions)).toEqual([['transfer', { amount: 25, memo: 'invoice 1042', to: 'alice' }]]);
    await expectRecorded(steps);
    expect(serverExecutionsOf(runId)).toEqual([]);
  });

  it('edited: the agent follows the edit and runs the edited call (new call id, same run), once; the original never runs', async () => {
    const runId = 'run-edit';
    const lines: string[] = [];
    const executions: LocalExecution[] = [];
    const [steps] = await Promise.all([
      runScriptedAgent({ url: server.url, agentToken: AGENT, runId, executions, log: (line) => lines.push(line) }),
      approverDecides('edit', runId),
    ]);
    const editedCallId = steps[1]!.callId;
    expect(editedCallId).toMatch(/^call_large_transfer~edit-/);
    expect(summary(steps)).toEqual([
      ['call_small_transfer', 'executed', null],
      [editedCallId, 'executed', null],
      [`${editedCallId} (replay)`, 'not_approved', 'already_consumed'],
      ['call_delete_repo', 'denied', 'policy_deny'],
    ]);
    expect(lines.join('\n')).toContain('agent: request is edited');
    expect(lines.join('\n')).toContain(`agent: the approver edited the call; running the edited call ${editedCallId}`);
    expect(ranLocally(executions)).toEqual([
      ['transfer', { amount: 25, memo: 'invoice 1042', to: 'alice' }],
      ['transfer', { amount: 250, memo: 'urgent', to: 'new-supplier' }],
    ]);
    await expectRecorded(steps);
  });

  it('an unreachable service: the agent says which URL it could not reach and why', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createServer();
    const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as AddressInfo).port)));
    await new Promise((resolve) => probe.close(resolve));
    const url = `http://127.0.0.1:${port}`;
    await expect(runScriptedAgent({ url, agentToken: AGENT, log: () => {} })).rejects.toThrow(`cannot reach ${url}: fetch failed: connect ECONNREFUSED`);
  });

  it('a wrong agent token is refused', async () => {
    await expect(runScriptedAgent({ url: server.url, agentToken: 'not-the-token-000000', log: () => {} })).rejects.toThrow(/401/);
  });
});
