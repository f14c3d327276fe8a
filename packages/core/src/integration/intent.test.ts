import { describe, expect, it } from 'vitest';
import { MAX_TASK_LENGTH } from '../gate/intent/intent-stage.ts';
import { type ConversationMessage, intentTask, type TaskExtractor, textOfContent, textOfToolOutput } from './index.ts';

const CONTEXT = { runId: 'r', sessionId: 's', principal: 'p' };
const CONVERSATION: ConversationMessage[] = [{ role: 'user', content: 'Summarize the failing tests' }];
const extractor = (answer: Awaited<ReturnType<TaskExtractor['extract']>> | Error): TaskExtractor => ({
  extract: async () => {
    if (answer instanceof Error) throw answer;
    return answer;
  },
});

describe('integration kit: the task for the intent stage', () => {
  it('no intent option: no task, and the conversation is not read', async () => {
    let read = false;
    expect(
      await intentTask(
        undefined,
        () => {
          read = true;
          return CONVERSATION;
        },
        CONTEXT,
      ),
    ).toEqual({});
    expect(read).toBe(false);
  });

  it('an extractor gives the task from the conversation; a task function from the conversation and context', async () => {
    const seen: unknown[] = [];
    const ok: TaskExtractor = {
      extract: async (messages) => {
        seen.push(messages);
        return { ok: true, task: '  Summarize the failing tests.  ' };
      },
    };
    expect(await intentTask({ extractor: ok }, () => CONVERSATION, CONTEXT)).toEqual({ task: 'Summarize the failing tests.' });
    expect(seen).toEqual([CONVERSATION]);
    const byApp = await intentTask({ task: ({ messages, principal }) => `${principal}: ${messages[0]?.content}` }, () => CONVERSATION, CONTEXT);
    expect(byApp).toEqual({ task: 'p: Summarize the failing tests' });
  });

  it('offers the user only accepted travel with the task, apart from it; malformed ones are dropped', async () => {
    const offered = ['Export the users table.', '', 'lone \ud800', 42 as unknown as string, 'x'.repeat(MAX_TASK_LENGTH + 1)];
    expect(await intentTask({ extractor: extractor({ ok: true, task: 'Export the users table.', offered }) }, () => CONVERSATION, CONTEXT)).toEqual({
      task: 'Export the users table.',
      offered: ['Export the users table.'],
    });
    expect(await intentTask({ extractor: extractor({ ok: true, task: 'Summarize the failing tests', offered: [] }) }, () => CONVERSATION, CONTEXT)).toEqual({ task: 'Summarize the failing tests' });
  });

  it('fails closed to no task: a failed, throwing, blank, too long or malformed answer', async () => {
    const cases = [
      { extractor: extractor({ ok: false, reason: 'timeout' }) },
      { extractor: extractor(new Error('down')) },
      { extractor: extractor({ ok: true, task: '   ' }) },
      { extractor: extractor({ ok: true, task: 'x'.repeat(MAX_TASK_LENGTH + 1) }) },
      { extractor: extractor({ ok: true, task: 'lone \ud800 surrogate' }) },
      { task: () => undefined },
      { task: () => Promise.reject(new Error('down')) },
      { task: () => 42 as unknown as string },
    ];
    for (const intent of cases) expect(await intentTask(intent, () => CONVERSATION, CONTEXT)).toEqual({});
    const throwing = () => {
      throw new Error('unreadable');
    };
    expect(await intentTask({ task: () => 'ok' }, throwing, CONTEXT)).toEqual({});
    expect(await intentTask({ extractor: extractor({ ok: true, task: 'x'.repeat(MAX_TASK_LENGTH) }) }, () => CONVERSATION, CONTEXT)).toEqual({ task: 'x'.repeat(MAX_TASK_LENGTH) });
  });

  it('reads text from content strings, text parts and tool outputs', () => {
    expect(textOfContent([{ type: 'text', text: 'a' }, { type: 'image', url: 'x' }, { type: 'input_text', text: 'b' }, 'c'])).toBe('a\nb\nc');
    expect(textOfContent({ text: 'not a content' })).toBe('');
    expect(textOfToolOutput({ type: 'text', text: 'out' })).toBe('out');
    expect(textOfToolOutput({ rows: 3 })).toBe('{"rows":3}');
    expect(textOfToolOutput(undefined)).toBe('');
  });
});
