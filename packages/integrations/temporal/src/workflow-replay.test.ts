import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleForTest } from './testing/bundle.ts';
import { approvedCallHistory, expiredCallHistory, forgedSignalHistory } from './testing/history.ts';

/**
 * Replay with `Worker.runReplayHistory` (the SDK's native replayer, no server): the
 * workflow helpers run in Temporal's real sandbox against histories BUILT BY HAND from the
 * event schema (testing/history.ts), since no server can record one here. A replay fails
 * when the code's commands differ from the history's (a determinism violation).
 */
describe('replay of hand-built workflow histories (no server)', () => {
  let code: string;
  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    code = (await bundleForTest()).code;
  }, 120_000);

  it('approval path: propose, a timer until the expiry, the decision signal, the timer cancelled, the guarded tool', async () => {
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, approvedCallHistory(), 'wf-order-42')).resolves.toBeUndefined();
  }, 60_000);

  it('no decision: the timer fires at the expiry and nothing else is scheduled', async () => {
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, expiredCallHistory(), 'wf-order-42')).resolves.toBeUndefined();
  }, 60_000);

  it('a forged early signal: the refused tool activity (still pending) sends the workflow back to waiting, then the real decision runs it', async () => {
    await expect(Worker.runReplayHistory({ workflowBundle: { code } }, forgedSignalHistory(), 'wf-order-42')).resolves.toBeUndefined();
  }, 60_000);

  // What the replayer compares is the sequence of commands: in this SDK version (1.24) it did not flag a
  // changed activity type or id in a hand-edited history, so the control is about sequence.
  it('negative control: a history where the tool ran without the decision signal fails to replay (the helpers never run it unwoken)', async () => {
    await expect(
      Worker.runReplayHistory({ workflowBundle: { code } }, approvedCallHistory({ signalName: 'something.else' }), 'wf-order-42'),
    ).rejects.toThrow(/[Nn]ondeterminism/);
  }, 60_000);
});
