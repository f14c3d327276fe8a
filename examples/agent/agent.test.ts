import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// Test-only helper from the server package: spawns the real `countersign serve`.
import { type ServeProcess, spawnServe } from '../../packages/server/src/serve/testing/spawn-serve.ts';
import { ApproverApi } from './approver-api.ts';
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
async function approverDecides(decision: 'approve' | 'deny', runId: string): Promise<void> {
  const approver = new ApproverApi(server.url, APPROVER);
  for (;;) {
    const request = (await approver.pending()).find((view) => view.call.runId === runId);
    if (request !== undefined) {
      expect(request.call.toolName).toBe('transfer');
      expect(request.call.canonicalArguments).toBe('{"amount":2500,"memo":"urgent","to":"new-supplier"}');
      await approver.decide(request.requestId, decision, 'checked by the test');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const executionsOf = (runId: string) => server.events().filter((e) => e.event === 'executed' && e.runId === runId);
const summary = (steps: StepResult[]) => steps.map((s) => [s.callId, s.status, s.reason ?? null]);

describe('the scripted agent against countersign serve', () => {
  for (const wait of ['events', 'poll'] as const) {
    it(`approved (waiting via ${wait}): small and large transfers run exactly once, the delete never`, async () => {
      const runId = `run-approve-${wait}`;
      const lines: string[] = [];
      const [steps] = await Promise.all([
        runScriptedAgent({ url: server.url, agentToken: AGENT, runId, wait, log: (line) => lines.push(line) }),
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
      await expect.poll(() => executionsOf(runId).map((e) => e.callId)).toEqual(['call_small_transfer', 'call_large_transfer']);
    });
  }

  it('denied: the large transfer never runs', async () => {
    const runId = 'run-deny';
    const [steps] = await Promise.all([
      runScriptedAgent({ url: server.url, agentToken: AGENT, runId, log: () => {} }),
      approverDecides('deny', runId),
    ]);
    expect(summary(steps)).toEqual([
      ['call_small_transfer', 'executed', null],
      ['call_large_transfer', 'denied', null],
      ['call_delete_repo', 'denied', 'policy_deny'],
    ]);
    // Give a stray execution time to show up before checking that none did.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(executionsOf(runId).map((e) => e.callId)).toEqual(['call_small_transfer']);
  });

  it('a wrong agent token is refused', async () => {
    await expect(runScriptedAgent({ url: server.url, agentToken: 'not-the-token-000000', log: () => {} })).rejects.toThrow(/401/);
  });
});
