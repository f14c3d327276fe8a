import type { ConversationMessage, TaskExtractor } from '../integration/intent.ts';
import { INTENT_TASK, scriptedMatcher } from './intent-conformance.ts';

/*
 * What every framework integration's intent test plays: an extractor that stands in for
 * `createLocalExtractor()` and a matcher that serves exactly one tool under the task.
 */

/** Stands in for `createLocalExtractor()`: the last user message is the task; keeps every conversation it saw in `seen`. */
export function lastUserMessageExtractor(seen: ConversationMessage[][], fail = false): TaskExtractor {
  return {
    async extract(messages) {
      seen.push([...messages]);
      if (fail) return { ok: false, reason: 'timeout' };
      const last = messages.filter((m) => m.role === 'user').at(-1);
      return last === undefined ? { ok: false, reason: 'no_user_message' } : { ok: true, task: last.content };
    },
  };
}

/** A scripted matcher that says `match` only for `toolName` under `INTENT_TASK`, `mismatch` for anything else. */
export function oneToolMatcher(toolName: string) {
  return scriptedMatcher(({ task, tool }) => ({ decision: task === INTENT_TASK && tool.name === toolName ? 'match' : 'mismatch', score: 0.5, matcher: 'scripted' }));
}
