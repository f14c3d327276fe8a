import { describe, expect, it } from 'vitest';
import { runClaudeAgentSdkExample } from './claude-agent-sdk.ts';

describe('the Claude Agent SDK example', () => {
  it('runs the echo, holds the write until approved, runs it once, refuses the replay', async () => {
    const steps = await runClaudeAgentSdkExample();
    expect(steps.map((s) => s.outcome)).toEqual([
      'echo ran; write: not_approved (approval_pending); notes.txt exists: false',
      'approved',
      'ran: notes.txt = "ship it\\n"',
      'not_approved (already_consumed); notes.txt exists: false',
    ]);
  }, 90_000);
});
