import { describe, expect, it } from 'vitest';
import { runOpenAiAgentsExample } from './openai-agents.ts';

describe('the OpenAI Agents SDK example', () => {
  it('runs the listing and the approved read once each; every tampered saved state runs nothing', async () => {
    const { steps, executions } = await runOpenAiAgentsExample();
    expect(executions).toEqual([
      { tool: 'list_dir', args: { path: '/tmp' } },
      { tool: 'read_file', args: { path: '/tmp/a' } },
    ]);
    expect(steps.map((s) => s.outcome)).toEqual([
      expect.stringMatching(/^list ran; read waits for request /),
      'not_approved (approval_pending)',
      'recorded in Countersign',
      'not_approved (args_mismatch)',
      'ran 1×',
      'not_approved (already_consumed)',
    ]);
  });
});
