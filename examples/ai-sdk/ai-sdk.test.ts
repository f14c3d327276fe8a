import { describe, expect, it } from 'vitest';
import { runAiSdkExample } from './ai-sdk.ts';

describe('the AI SDK example', () => {
  it('runs the read and the approved transfer once each; every tampered resend runs nothing', async () => {
    const { steps, executions } = await runAiSdkExample();
    expect(executions).toEqual([
      { tool: 'read_balance', args: { account: 'main' } },
      { tool: 'transfer', args: { amount: 2500, to: 'alice' } },
    ]);
    expect(steps.map((s) => s.outcome)).toEqual([
      expect.stringMatching(/^read ran; transfer waits for request /),
      'not_approved (approval_pending)',
      'not_approved (args_mismatch)',
      'recorded in Countersign',
      'not_approved (tool_mismatch)',
      'ran 1×',
      'not_approved (already_consumed)',
    ]);
  });
});
