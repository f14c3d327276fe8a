import { describe, expect, it } from 'vitest';
import { runLangChainExample } from './langchain.ts';

describe('the LangChain example', () => {
  it('runs the read and the approved transfer once each; unsigned, edited and replayed resumes run nothing (the replay gets the recorded result)', async () => {
    const { steps, executions } = await runLangChainExample();
    expect(executions).toEqual([
      { tool: 'read_balance', args: { account: 'main' } },
      { tool: 'transfer', args: { amount: 2500, to: 'alice' } },
    ]);
    expect(steps.map((s) => s.outcome)).toEqual([
      expect.stringMatching(/^read ran; shell denied \(unclassified_tool\); transfer waits for /),
      'interrupted again, nothing ran',
      'interrupted again, nothing ran',
      'recorded in Countersign',
      'ran 1×',
      'not run again: its recorded result',
    ]);
  });
});
